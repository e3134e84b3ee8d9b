package mcpcap

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/pin"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkListing500Pinned: listing a server's 500 tools with a pin guard (policy block,
// pins already recorded) versus without, on the same in-process session, interleaved in one
// loop; it reports the ratio and the time pins add to a listing (target: at most 1 ms).
func BenchmarkListing500Pinned(b *testing.B) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	for i := range 500 {
		srv.AddTool(&mcp.Tool{
			Name:        fmt.Sprintf("tool_%03d", i),
			Description: strings.Repeat(fmt.Sprintf("Does thing %d to the resource it is given and returns what changed. ", i), 3),
			InputSchema: map[string]any{"type": "object", "required": []any{"id"}, "properties": map[string]any{
				"id":    map[string]any{"type": "string", "description": "The resource's id."},
				"limit": map[string]any{"type": "integer", "minimum": 1, "maximum": 100},
				"tags":  map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
			}},
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: i%2 == 0},
		}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	book := pin.NewBook(pin.NewStore(b.TempDir()), nil, nil)
	plain, err := New(Config{Name: "bench"}, WithClient(cs))
	if err != nil {
		b.Fatal(err)
	}
	pinned, err := New(Config{Name: "bench"}, WithClient(cs),
		WithGuard(book.Guard(pin.Key("user", "bench", decl.Server{}), "bench", "user", pin.Block)))
	if err != nil {
		b.Fatal(err)
	}
	defer func() { plain.Close(ctx); pinned.Close(ctx); cs.Close(); ss.Wait() }()
	list := func(c *Cap) {
		c.Recheck()
		ts, err := c.Tools(ctx)
		if err != nil || len(ts) != 500 {
			b.Fatalf("listed %d tools: %v", len(ts), err)
		}
	}
	for range 3 { // the first pinned listing records the pins
		list(plain)
		list(pinned)
	}
	var tPlain, tPinned time.Duration
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		list(plain)
		t1 := time.Now()
		list(pinned)
		tPinned += time.Since(t1)
		tPlain += t1.Sub(t0)
	}
	b.StopTimer()
	b.ReportMetric(float64(tPinned)/float64(tPlain), "x-baseline")
	b.ReportMetric(float64((tPinned-tPlain).Microseconds())/float64(b.N), "added-µs/listing")
}

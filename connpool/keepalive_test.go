package connpool

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentpool/agentpool/decl"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Concurrent calls on one pooled HTTP client reuse their connections: net/http's default
// transport keeps 2 idle connections per host, so with 32 callers every other call dialled
// anew (and left a socket in TIME_WAIT), which BenchmarkHTTPUpstreamDials32 in package gateway
// measured at 0.4–0.6 dials per call.
func TestHTTPClientKeepsConnections(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct{ Text string }) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	ts := httptest.NewUnstartedServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	var dials atomic.Int64
	ts.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			dials.Add(1)
		}
	}
	ts.Start()
	defer ts.Close()
	p, _ := capturePool(t)
	c := mustGet(t, p, ServerConfig{Name: "echo", Server: decl.Server{URL: ts.URL}}, GlobalPartition)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	const callers, rounds = 32, 10
	for range rounds {
		var wg sync.WaitGroup
		for range callers {
			wg.Go(func() {
				if _, err := c.Session().CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}}); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	}
	p.Release(c)
	if err := p.ClosePartition(ctx, GlobalPartition); err != nil { // ends the GET stream before ts.Close
		t.Fatal(err)
	}
	// One connection per concurrent caller at most, plus the session's own (initialize, the
	// GET stream): never one per call.
	if n := dials.Load(); n > callers+8 {
		t.Errorf("%d connections dialled for %d calls by %d callers; want at most %d", n, callers*rounds, callers, callers+8)
	}
}

package mcpcap

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/agentpool/agentpool/connpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func echoHTTPServer(t *testing.T) string {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
	})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(srv.Close)
	return srv.URL
}

// Close racing with a first connect must still give the lease back: a lease installed after
// Close looked for one would pin the pooled client (and its process) until the pool closes.
func TestCloseRacingConnectReleasesLease(t *testing.T) {
	url := echoHTTPServer(t)
	p := newPool(t)
	cfg := Config{Name: "echo", Server: connpool.ServerConfig{URL: url}}
	c, err := New(cfg, WithPool(p, ""))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	testHookInstall = func(hc *Cap) {
		if hc == c {
			if err := c.Close(ctx); err != nil {
				t.Error(err)
			}
		}
	}
	defer func() { testHookInstall = nil }()
	_, _ = c.ensure(ctx)
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if n := p.Stats().Leases; n != 0 {
		t.Fatalf("%d leases after Close, want 0", n)
	}
}

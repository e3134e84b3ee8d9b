package connpool

import (
	"context"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/internal/memnet"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// memServer serves a go-sdk MCP server with an echo tool over streamable HTTP in memory
// (memnet), for tests in a synctest bubble, and returns its config and the pool options
// that reach it.
func memServer(t *testing.T) (ServerConfig, *Options) {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "mem"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Text string `json:"text"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	srv, l := memnet.NewServer(t, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	return ServerConfig{Name: "mem", Server: decl.Server{URL: srv.URL + "/mcp"}}, &Options{DialContext: l.Dial}
}

// TestIdleExpiryAfterTheTimeout: a released client lives IdleTimeout (the default, 5 minutes,
// on a synctest bubble's clock) after its last lease ends, a new lease in between starting
// the wait again, and is closed when it has passed.
func TestIdleExpiryAfterTheTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg, o := memServer(t)
		p := newTestPool(t, o)
		c := mustGet(t, p, cfg, GlobalPartition)
		p.Release(c)
		advance(DefaultIdleTimeout - time.Second)
		again := mustGet(t, p, cfg, GlobalPartition)
		if again.Session() != c.Session() {
			t.Fatal("a client idle for less than IdleTimeout was not reused")
		}
		p.Release(again)
		advance(DefaultIdleTimeout - time.Second)
		if s := p.Stats(); s.Clients != 1 || s.Idle != 1 {
			t.Fatalf("stats %+v %v after the second release, want the client idle: the wait starts at the last release", s, DefaultIdleTimeout-time.Second)
		}
		select {
		case <-c.Done():
			t.Fatal("the client ended before IdleTimeout")
		default:
		}
		advance(time.Second)
		if s := p.Stats(); s.Clients != 0 {
			t.Fatalf("stats %+v at IdleTimeout after the release, want the client expired", s)
		}
		<-c.Done() // in a bubble, a Done that never closes is a deadlock the test reports
	})
}

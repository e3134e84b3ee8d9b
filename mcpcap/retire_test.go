package mcpcap

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// failingToolsListServer serves one tool over real streamable HTTP but answers every
// tools/list with a JSON-RPC error, so the connection stays up while listing fails.
func failingToolsListServer(t *testing.T) string {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "nolist", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
	})
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				return nil, errors.New("tools/list is broken")
			}
			return next(ctx, method, req)
		}
	})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(srv.Close)
	return srv.URL
}

// watchGoroutines counts goroutines running Cap.watch.
func watchGoroutines() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Count(string(buf[:n]), "mcpcap.(*Cap).watch(")
		}
		buf = make([]byte, 2*len(buf))
	}
}

// A connection retired while its pooled client stays alive (here: re-listing tools after
// connecting failed) must not leave its watch goroutine behind: every degraded probe would
// otherwise add one until Close.
func TestRetiredConnectionStopsItsWatcher(t *testing.T) {
	url := failingToolsListServer(t)
	p := newPool(t)
	c := newPoolCap(t, p, "", Config{
		Name:   "nolist",
		Server: connpool.ServerConfig{Server: decl.Server{URL: url}},
		Lazy:   true,
		Tools:  []ext.ToolEntry{{Name: "echo"}},
		Retry:  decl.Retry{Attempts: 2, Backoff: time.Millisecond},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for i := 0; i < 5; i++ {
		if _, err := c.CallTool(ctx, &ext.ToolCall{Name: "echo", Arguments: nil}); err == nil {
			t.Fatalf("call %d: no error although tools/list fails", i)
		}
		waitPast(t, c) // past the degraded probe interval (2 ms)
	}
	testwait.For(t, "watch goroutines of retired connections to end", func() bool { return watchGoroutines() == 0 })
}

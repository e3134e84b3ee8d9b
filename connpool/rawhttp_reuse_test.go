package connpool

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/agentpool/agentpool/decl"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Calls passed through one after another to a streamable HTTP server that answers with an
// event stream (the go-sdk's) keep their connections alive for the next calls, also when each
// call's context ends as it returns: a call does not leave its connection to be closed, so
// that calls dial anew (a TCP handshake, a socket left in TIME_WAIT and two transport
// goroutines per call).
func TestRawHTTPReusesConnection(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct{ Text string }) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	// The connections that carried a passed-through call (its id is the pool's own), and how
	// many of them were closed: the go-sdk session's own requests are not this test's.
	var mu sync.Mutex
	raw := map[string]bool{}
	closed := 0
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(b))
		if bytes.Contains(b, []byte(rawIDPrefix)) {
			mu.Lock()
			raw[r.RemoteAddr] = true
			mu.Unlock()
		}
		h.ServeHTTP(w, r)
	}))
	ts.Config.ConnState = func(c net.Conn, s http.ConnState) {
		if s == http.StateClosed {
			mu.Lock()
			if raw[c.RemoteAddr().String()] {
				closed++
			}
			mu.Unlock()
		}
	}
	ts.Start()
	t.Cleanup(ts.Close) // after the pool's: its standalone stream holds a connection
	p := newTestPool(t, nil)
	c := mustGet(t, p, ServerConfig{Name: "echo", Server: decl.Server{URL: ts.URL}}, GlobalPartition)
	defer p.Release(c)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	args := json.RawMessage(`{"name":"echo","arguments":{"text":"hi"}}`)
	const calls = 20
	for i := range calls {
		// Each call has a context of its own that ends when it returns, as a gateway's
		// request does.
		cctx, ccancel := context.WithCancel(ctx)
		res, err := c.CallRaw(cctx, "tools/call", args)
		ccancel()
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		var r mcp.CallToolResult
		if err := json.Unmarshal(res, &r); err != nil || len(r.Content) != 1 {
			t.Fatalf("call %d: result %s (%v)", i, res, err)
		}
	}
	// A second round, so that the server has seen the closes of the first round's
	// connections, if any, by the time it is done.
	for i := range calls {
		if _, err := c.CallRaw(ctx, "tools/call", args); err != nil {
			t.Fatalf("call %d: %v", calls+i, err)
		}
	}
	mu.Lock()
	n := closed
	mu.Unlock()
	if n > 0 {
		t.Fatalf("%d calls one after another closed %d connections, want none", 2*calls, n)
	}
}

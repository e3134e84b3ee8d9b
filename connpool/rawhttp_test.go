package connpool

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// forgetfulServer is a streamable HTTP MCP server (the go-sdk's) that can forget a session as
// a server does that expired or lost it: every later request in it is answered 404. It has no
// standalone stream (GET is 405), so the go-sdk session of a client learns of the loss only
// from its own requests, as with many servers.
type forgetfulServer struct {
	url string

	mu        sync.Mutex
	forgotten map[string]bool
}

func newForgetfulServer(t *testing.T) *forgetfulServer {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct{ Text string }) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	fs := &forgetfulServer{forgotten: map[string]bool{}}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			http.Error(w, "no standalone stream", http.StatusMethodNotAllowed)
			return
		}
		fs.mu.Lock()
		gone := fs.forgotten[r.Header.Get("Mcp-Session-Id")]
		fs.mu.Unlock()
		if gone {
			http.Error(w, "session not found", http.StatusNotFound)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		ts.Close()
		for ss := range srv.Sessions() { // the forgotten ones: the client's DELETE got 404
			_ = ss.Close()
		}
	})
	fs.url = ts.URL
	return fs
}

func (fs *forgetfulServer) forget(session string) {
	fs.mu.Lock()
	fs.forgotten[session] = true
	fs.mu.Unlock()
}

// A call answered 404 (the server forgot the session) ends the client at once, before its
// caller hears of it, whether the call was passed through or the go-sdk session's own: the
// Get that follows starts a new session. Otherwise the pool kept handing out a client whose
// every passed-through call failed, retries included (the go-sdk session, with no traffic of
// its own, never learnt), or, for the session's calls, learnt of it only when its watcher ran.
// Each path goes round several times, the window being short on an idle machine.
func TestSessionMissingEndsClient(t *testing.T) {
	args := json.RawMessage(`{"name":"echo","arguments":{"text":"hi"}}`)
	paths := map[string]func(context.Context, *Conn) error{
		"raw": func(ctx context.Context, c *Conn) error {
			_, err := c.CallRaw(ctx, "tools/call", args)
			return err
		},
		"session": func(ctx context.Context, c *Conn) error {
			_, err := c.Session().CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
			return err
		},
	}
	for name, callIn := range paths {
		t.Run(name, func(t *testing.T) {
			fs := newForgetfulServer(t)
			p := newTestPool(t, nil)
			cfg := ServerConfig{Name: "echo", Server: decl.Server{URL: fs.url}}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			c := mustGet(t, p, cfg, GlobalPartition)
			for i := range 10 {
				if err := callIn(ctx, c); err != nil {
					p.Release(c)
					t.Fatalf("round %d: call on a new client: %v", i, err)
				}
				fs.forget(c.Session().ID())
				if err := callIn(ctx, c); !errors.Is(err, mcp.ErrSessionMissing) {
					p.Release(c)
					t.Fatalf("round %d: call in a forgotten session: %v, want ErrSessionMissing", i, err)
				}
				p.Release(c)
				old := c
				c = mustGet(t, p, cfg, GlobalPartition)
				if c.c == old.c {
					p.Release(c)
					t.Fatalf("round %d: the pool handed out the client whose session the server forgot", i)
				}
				waitDone(t, old) // the old client ended
			}
			p.Release(c)
		})
	}
}

// A passed-through call on a client the pool has ended is not sent, and says so as the
// session's calls do (mcp.ErrConnectionClosed: mcpcap may repeat even a non-idempotent call
// then). It used to be POSTed in the ended session and fail with the server's 404, which
// mcpcap must read as "sent".
func TestRawHTTPOnEndedClientNotSent(t *testing.T) {
	fs := newForgetfulServer(t)
	p := New(&Options{KillGrace: 500 * time.Millisecond})
	c, err := p.Get(context.Background(), ServerConfig{Name: "echo", Server: decl.Server{URL: fs.url}}, GlobalPartition)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	waitDone(t, c)
	if _, err := c.Session().CallTool(ctx, &mcp.CallToolParams{Name: "echo"}); !errors.Is(err, mcp.ErrConnectionClosed) {
		t.Fatalf("the session's call: %v, want ErrConnectionClosed", err)
	}
	if _, err := c.CallRaw(ctx, "tools/call", json.RawMessage(`{"name":"echo"}`)); !errors.Is(err, mcp.ErrConnectionClosed) {
		t.Fatalf("passed-through call: %v, want ErrConnectionClosed", err)
	}
	p.Release(c)
}

// The notifications/cancelled of a passed-through call cancelled after the pool closed is not
// POSTed on a connection of its own that outlives the client. It was, on a context of its own
// for up to 10 s: being the client's first request since it closed its idle connections, its
// connection was kept idle after the answer (a socket, and two net/http goroutines, for 90 s).
func TestRawHTTPCancelAfterCloseLeavesNoConnection(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "slow", Version: "1"}, nil)
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	mcp.AddTool(srv, &mcp.Tool{Name: "slow"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		started <- struct{}{}
		<-release // a tool that does not heed cancellation
		return &mcp.CallToolResult{}, nil, nil
	})
	var mu sync.Mutex
	open := map[net.Conn]bool{}
	ts := httptest.NewUnstartedServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	ts.Config.ConnState = func(c net.Conn, s http.ConnState) {
		mu.Lock()
		defer mu.Unlock()
		if s == http.StateClosed || s == http.StateHijacked {
			delete(open, c)
		} else {
			open[c] = true
		}
	}
	ts.Start()
	defer ts.Close()
	defer close(release)
	p := New(&Options{KillGrace: 200 * time.Millisecond})
	c, err := p.Get(context.Background(), ServerConfig{Name: "slow", Server: decl.Server{URL: ts.URL}}, GlobalPartition)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := c.CallRaw(ctx, "tools/call", json.RawMessage(`{"name":"slow"}`))
		errc <- err
	}()
	<-started
	cctx, ccancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer ccancel()
	if err := p.Close(cctx); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("call: %v", err)
	}
	p.Release(c)
	testwait.For(t, "the closed client's connections to close", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(open) <= 1 // the slow call's, whose handler runs until release
	})
}

package mcpcap

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/ext"
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
	cfg := Config{Name: "echo", Server: connpool.ServerConfig{Server: decl.Server{URL: url}}}
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

// Close during a connect that is still waiting for the pool (the server has not answered
// initialize) must not return while that connect can still take a lease: it ends the wait and
// returns once the connect has given up, so no lease outlives Close.
func TestCloseDuringPendingConnect(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "slow", Version: "1"}, nil)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	arrived, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			once.Do(func() { close(arrived) })
			select { // hold initialize until the test is done, and never answer it
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	defer close(release)
	p := newPool(t)
	c, err := New(Config{Name: "slow", Server: connpool.ServerConfig{Server: decl.Server{URL: srv.URL, StartupTimeout: time.Minute}}}, WithPool(p, ""))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	connectErr := make(chan error, 1)
	go func() {
		_, err := c.ensure(ctx)
		connectErr <- err
	}()
	select {
	case <-arrived:
	case <-ctx.Done():
		t.Fatal("initialize never reached the server")
	}
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if n := p.Stats().Leases; n != 0 {
		t.Fatalf("%d leases after Close, want 0", n)
	}
	select {
	case err := <-connectErr:
		if !errors.Is(err, ext.ErrClosed) {
			t.Fatalf("connect ended by Close: %v, want ext.ErrClosed", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Close returned while the connect still waits for the pool: its lease would outlive Close")
	}
	if n := p.Stats().Leases; n != 0 {
		t.Fatalf("%d leases after the connect gave up, want 0", n)
	}
}

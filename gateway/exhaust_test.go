package gateway_test

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/gateway"
	"github.com/agentpool/agentpool/host"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestPoolExhaustedRefusesSession: with pool.max_total_clients session-scoped servers held by
// live sessions (clients that may never DELETE), a new session does not wait in the pool
// for as long as its client waits: its initialize fails after Options.OpenTimeout with a
// JSON-RPC error saying the pool is exhausted, the other sessions go on, and once one
// of them ends a new session opens.
//
// OpenTimeout also bounds a start, which on a loaded machine takes longer than a refusal
// should. So two gateways share the host and its pool, as serve's pool and agent paths do:
// the sessions that must open use the default OpenTimeout, the refused one a short one.
func TestPoolExhaustedRefusesSession(t *testing.T) {
	bin := testserver.Build(t)
	dir := t.TempDir()
	cfg, err := config.Parse(filepath.Join(dir, "agentpool.yaml"), []byte(
		"pool:\n  max_total_clients: 2\nmcp_servers:\n  fault: {command: "+bin+", scope: session}\n"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.Build(context.Background(), cfg, host.Options{ProjectDir: dir, HomeDir: dir, NoDefaultRoots: true})
	if err != nil {
		t.Fatal(err)
	}
	opts := gateway.Options{Registry: h.Registry, OpenSession: h.OpenSessionFunc(""), CloseSession: h.CloseSession}
	g, err := gateway.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	url := newHTTPServer(t, g, h)
	opts.OpenTimeout = 500 * time.Millisecond // below mcpcap's retry round: this bound refuses
	short, err := gateway.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	shortSrv := httptest.NewServer(short.Handler())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := short.Close(ctx); err != nil {
			t.Errorf("short gateway close: %v", err)
		}
		shortSrv.Close()
	})
	a, _ := connect(t, url, nil)
	b, _ := connect(t, url, nil)
	call(t, a, "fault__pid", map[string]any{})
	call(t, b, "fault__pid", map[string]any{})

	// A liveness bound on the refused initialize: without one, a hang fails the test.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "third", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: shortSrv.URL}, nil)
	if err == nil {
		_ = cs.Close()
		t.Fatal("a third session opened with the pool's 2 slots held")
	}
	if ctx.Err() != nil || !strings.Contains(err.Error(), "connection pool exhausted") {
		t.Fatalf("third initialize: %v; want a JSON-RPC error saying the pool is exhausted", err)
	}
	t.Logf("refused: %v", err)
	if n, m := g.Sessions(), short.Sessions(); n != 2 || m != 0 {
		t.Errorf("Sessions() = %d and %d (the refusing gateway) after the refusal, want 2 and 0", n, m)
	}
	if got := call(t, b, "fault__echo", map[string]any{"text": "still"}); got != "still" {
		t.Errorf("b after the refusal: echo = %q", got)
	}

	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	testwait.For(t, "a's session to end", func() bool { return g.Sessions() == 1 })
	c, _ := connect(t, url, nil)
	if got := call(t, c, "fault__echo", map[string]any{"text": "room"}); got != "room" {
		t.Errorf("a session opened after one ended: echo = %q", got)
	}
}

package gateway_test

import (
	"context"
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
	g, err := gateway.New(gateway.Options{Registry: h.Registry, OpenSession: h.OpenSessionFunc(""), CloseSession: h.CloseSession,
		OpenTimeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	url := newHTTPServer(t, g, h)
	a, _ := connect(t, url, nil)
	b, _ := connect(t, url, nil)
	call(t, a, "fault__pid", map[string]any{})
	call(t, b, "fault__pid", map[string]any{})

	// A liveness bound on the refused initialize: without one, a hang fails the test.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "third", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err == nil {
		_ = cs.Close()
		t.Fatal("a third session opened with the pool's 2 slots held")
	}
	if ctx.Err() != nil || !strings.Contains(err.Error(), "connection pool exhausted") {
		t.Fatalf("third initialize: %v; want a JSON-RPC error saying the pool is exhausted", err)
	}
	t.Logf("refused: %v", err)
	if n := g.Sessions(); n != 2 {
		t.Errorf("Sessions() = %d after the refusal, want 2", n)
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

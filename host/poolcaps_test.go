package host

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/internal/testserver"
)

// callWithin calls tool on session sid's server "private" within d.
func callWithin(h *Host, sid, tool string, d time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	for _, c := range h.Registry.Visible(ext.Scope{SessionID: sid}) {
		if c.Name() != "private" {
			continue
		}
		res, err := c.(ext.ToolProvider).CallTool(ctx, &ext.ToolCall{Name: tool, Arguments: json.RawMessage(`{}`)})
		if err != nil {
			return "", err
		}
		if res.IsError || len(res.Content) == 0 {
			return "", errors.New("tool error")
		}
		return res.Content[0].Text, nil
	}
	return "", errors.New("session " + sid + " does not see its server")
}

// TestSessionServersBeyondMaxClients: with the default pool caps, more sessions than
// pool.max_clients (20) each get their own session-scoped server (the cap counts each
// session's servers apart); pool.max_total_clients bounds them all: a session beyond it
// fails with the pool exhausted, naming that cap.
func TestSessionServersBeyondMaxClients(t *testing.T) {
	bin := testserver.Build(t)
	dir := t.TempDir()
	decl := "mcp_servers:\n  private: {command: " + bin + ", scope: session, prefix: \"\"}\n"
	ctx := context.Background()

	h := buildHost(t, filepath.Join(dir, "agentpool.yaml"), decl, Options{})
	pids := map[string]bool{}
	for i := range connpool.DefaultMaxClients + 1 {
		sid := "s" + strconv.Itoa(i)
		if _, err := h.OpenSession(ctx, sid); err != nil {
			t.Fatal(err)
		}
		pid, err := callWithin(h, sid, "pid", 20*time.Second)
		if err != nil {
			t.Fatalf("session %d of %d: %v", i+1, connpool.DefaultMaxClients+1, err)
		}
		pids[pid] = true
	}
	if len(pids) != connpool.DefaultMaxClients+1 {
		t.Fatalf("%d server processes for %d sessions", len(pids), connpool.DefaultMaxClients+1)
	}

	capped := buildHost(t, filepath.Join(dir, "capped.yaml"), decl+"pool: {max_total_clients: 2}\n", Options{})
	for _, sid := range []string{"a", "b", "c"} {
		if _, err := capped.OpenSession(ctx, sid); err != nil {
			t.Fatal(err)
		}
	}
	for _, sid := range []string{"a", "b"} {
		if _, err := callWithin(capped, sid, "pid", 20*time.Second); err != nil {
			t.Fatalf("session %s: %v", sid, err)
		}
	}
	// mcpcap reports the pool's error in its message (the connect failed for the context).
	if _, err := callWithin(capped, "c", "pid", 500*time.Millisecond); err == nil ||
		!strings.Contains(err.Error(), connpool.ErrPoolExhausted.Error()) || !strings.Contains(err.Error(), "max_total_clients") {
		t.Fatalf("a third session with pool.max_total_clients 2: %v, want the pool exhausted at max_total_clients", err)
	}
}

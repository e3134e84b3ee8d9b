package host

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/internal/testserver"
)

// sessionCall calls tool on the session-scoped server "private" as session sid sees it.
func sessionCall(t *testing.T, h *Host, sid, tool, args string) string {
	t.Helper()
	for _, c := range h.Registry.Visible(ext.Scope{SessionID: sid}) {
		if c.Name() != "private" {
			continue
		}
		res, err := c.(ext.ToolProvider).CallTool(context.Background(), &ext.ToolCall{Name: tool, Arguments: json.RawMessage(args)})
		if err != nil || res.IsError || len(res.Content) == 0 {
			t.Fatalf("session %s: %s = %+v, %v", sid, tool, res, err)
		}
		return res.Content[0].Text
	}
	t.Fatalf("session %s does not see its server", sid)
	return ""
}

// TestReopenedSessionStartsFresh: a session id used again after its session was closed gets a
// new server process with no state, not the previous session's process (which the pool keeps
// for its idle timeout after the closed session released it).
func TestReopenedSessionStartsFresh(t *testing.T) {
	bin := testserver.Build(t)
	ctx := context.Background()
	h := buildHost(t, filepath.Join(t.TempDir(), "x.yaml"), "mcp_servers:\n  private: {command: "+bin+", scope: session, prefix: \"\"}\n", Options{})

	if _, err := h.OpenSession(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	sessionCall(t, h, "s1", "state_set", `{"value":"secret of the first session"}`)
	firstPID := sessionCall(t, h, "s1", "pid", `{}`)
	if err := h.Registry.CloseScope(ctx, ext.Scope{SessionID: "s1"}); err != nil {
		t.Fatal(err)
	}

	if _, err := h.OpenSession(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if got := sessionCall(t, h, "s1", "state_get", `{}`); got != "" {
		t.Errorf("reopened session reads %q, the state of the closed one", got)
	}
	if pid := sessionCall(t, h, "s1", "pid", `{}`); pid == firstPID {
		t.Errorf("reopened session runs on the closed session's process %s", pid)
	}
}

// TestCloseScopeForgetsPartitions: a session closed through Registry.CloseScope (which the docs
// allow in place of CloseSession) leaves nothing behind in the host: a long-running host that
// opens and closes sessions so must not accumulate one entry per session.
func TestCloseScopeForgetsPartitions(t *testing.T) {
	ctx := context.Background()
	h := buildHost(t, filepath.Join(t.TempDir(), "x.yaml"), "mcp_servers: {}\n", Options{})
	for i := range 50 {
		sid := "s" + string(rune('a'+i%26)) + string(rune('a'+i/26))
		if _, err := h.OpenSession(ctx, sid); err != nil {
			t.Fatal(err)
		}
		if err := h.Registry.CloseScope(ctx, ext.Scope{SessionID: sid}); err != nil {
			t.Fatal(err)
		}
	}
	h.sessMu.Lock()
	n := len(h.partitions)
	h.sessMu.Unlock()
	if n != 0 {
		t.Fatalf("after 50 sessions closed by CloseScope the host still records partitions of %d", n)
	}
}

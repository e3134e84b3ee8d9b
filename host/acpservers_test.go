package host

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/internal/testserver"
)

// callVisible calls tool on the capability named capName as scope sees it.
func callVisible(t *testing.T, h *Host, scope ext.Scope, capName, tool string) string {
	t.Helper()
	for _, c := range h.Registry.Visible(scope) {
		if c.Name() != capName {
			continue
		}
		res, err := c.(ext.ToolProvider).CallTool(context.Background(), &ext.ToolCall{Name: tool, Arguments: json.RawMessage(`{}`)})
		if err != nil || res.IsError || len(res.Content) == 0 {
			t.Fatalf("%s: %s = %+v, %v", scope, tool, res, err)
		}
		return res.Content[0].Text
	}
	t.Fatalf("%s does not see %s", scope, capName)
	return ""
}

// TestAddSessionServer: a server a client declares for its session (an ACP editor's session/new)
// is that session's alone, named by the client, listed "<name>__<tool>", and ended with the
// session: when CloseSession returns its process is gone.
func TestAddSessionServer(t *testing.T) {
	bin := testserver.Build(t)
	ctx := context.Background()
	h := buildHost(t, filepath.Join(t.TempDir(), "x.yaml"), "{}\n", Options{})
	if _, err := h.OpenSession(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.OpenSession(ctx, "s2"); err != nil {
		t.Fatal(err)
	}
	defer h.CloseSession(ctx, "s2")
	if err := h.AddSessionServer(ctx, "s1", "editor", decl.Server{Command: bin}); err != nil {
		t.Fatal(err)
	}
	for _, c := range h.Registry.Visible(ext.Scope{SessionID: "s2"}) {
		if c.Name() == "editor" {
			t.Fatal("another session sees the server a client added to its own")
		}
	}
	var listed []string
	for _, c := range h.Registry.Visible(ext.Scope{SessionID: "s1", AgentName: "a"}) {
		if c.Name() != "editor" {
			continue
		}
		ts, err := c.(ext.ToolProvider).Tools(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, tl := range ts {
			listed = append(listed, tl.Name)
		}
	}
	if !strings.Contains(strings.Join(listed, " "), "editor__echo") {
		t.Fatalf("the session's agent scope lists %v, want editor__echo among them", listed)
	}
	pid := callVisible(t, h, ext.Scope{SessionID: "s1"}, "editor", "editor__pid")
	if err := h.CloseSession(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(n, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the server's process %d is still there after CloseSession (kill 0: %v)", n, err)
	}
}

// TestAddSessionServerRefusals: extensions.allowed_commands holds for a client's servers; a
// name the session already sees, or a session not open, is refused; nothing is registered then.
func TestAddSessionServerRefusals(t *testing.T) {
	bin := testserver.Build(t)
	ctx := context.Background()
	cfg := "extensions:\n  allowed_commands: [true]\nmcp_servers:\n  pooled: {command: \"true\", lazy: true, tools: [{name: x}]}\n"
	h := buildHost(t, filepath.Join(t.TempDir(), "x.yaml"), cfg, Options{})
	if err := h.AddSessionServer(ctx, "nope", "editor", decl.Server{Command: "true"}); err == nil {
		t.Error("a server was added to a session that is not open")
	}
	if _, err := h.OpenSession(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	defer h.CloseSession(ctx, "s1")
	before := len(h.Registry.Registrations(ext.Scope{SessionID: "s1"}))
	for _, tc := range []struct {
		name string
		spec decl.Server
		want string
	}{
		{"editor", decl.Server{Command: bin}, "allowed_commands"},
		{"pooled", decl.Server{Command: "true"}, "already"},
		{"skills", decl.Server{Command: "true"}, "already"},
		{"bad/name", decl.Server{Command: "true"}, "name"},
		{"web", decl.Server{}, "needs a command"},
	} {
		err := h.AddSessionServer(ctx, "s1", tc.name, tc.spec)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("AddSessionServer(%q, %v) = %v, want an error saying %q", tc.name, tc.spec, err, tc.want)
		}
	}
	if after := len(h.Registry.Registrations(ext.Scope{SessionID: "s1"})); after != before {
		t.Errorf("refused servers left registrations: %d before, %d after", before, after)
	}
}

// TestAddSessionServerAgentNames: in a session of an agent (agentpool acp --agent), the names
// the agent's view holds — its own servers, pool-scoped and session-scoped — are taken too: a
// client's server may not take one and so rename the agent's configured tools.
func TestAddSessionServerAgentNames(t *testing.T) {
	ctx := context.Background()
	h := buildHost(t, filepath.Join(t.TempDir(), "x.yaml"), `
agents:
  a:
    mcp_servers:
      mine: {command: /nonexistent/a, lazy: true, tools: [{name: ping}]}
      private: {command: /nonexistent/p, scope: session, lazy: true, tools: [{name: ping}]}
`, Options{})
	if _, err := h.OpenAgentSession(ctx, "s1", "a"); err != nil {
		t.Fatal(err)
	}
	defer h.CloseSession(ctx, "s1")
	scope := ext.Scope{SessionID: "s1", AgentName: "a"}
	before := len(h.Registry.Registrations(scope))
	for _, name := range []string{"mine", "private"} {
		err := h.AddSessionServer(ctx, "s1", name, decl.Server{Command: "/nonexistent/editor", Lazy: true,
			Tools: []decl.StaticTool{{Name: "ping"}}})
		if err == nil || !strings.Contains(err.Error(), "already") {
			t.Errorf("AddSessionServer(%q) in a session of agent a = %v, want an error saying the name is taken", name, err)
		}
	}
	if after := len(h.Registry.Registrations(scope)); after != before {
		t.Errorf("refused servers left registrations: %d before, %d after", before, after)
	}
}

package host

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/internal/testserver"
)

// pidModel asks for the tool "pid" once, then answers with what it returned.
type pidModel struct{ steps atomic.Int32 }

func (m *pidModel) Generate(_ context.Context, req *agent.Request) (*agent.Response, error) {
	if m.steps.Add(1) == 1 {
		return &agent.Response{ToolCalls: []agent.ToolCall{{ID: "c1", Name: "pid", Arguments: []byte(`{}`)}}}, nil
	}
	last := req.Messages[len(req.Messages)-1]
	return &agent.Response{Text: "pid " + last.Text()}, nil
}

func sessionServerHost(t *testing.T) *Host {
	bin := testserver.Build(t)
	return buildHost(t, filepath.Join(t.TempDir(), "x.yaml"), "mcp_servers:\n  private: {command: "+bin+", scope: session, prefix: \"\"}\n", Options{})
}

// TestAgentOutsideOpenSession: an agent at the scope of a session the host did not open, while
// the config has a session-scoped server, is refused with an error naming the server, and a
// run in a session closed since is too: never a run whose tool answers "no such tool".
func TestAgentOutsideOpenSession(t *testing.T) {
	h := sessionServerHost(t)
	_, err := agent.New(agent.Options{Model: &pidModel{}, Registry: h.Registry, Scope: ext.Scope{SessionID: "s1", AgentName: "a"}})
	if !errors.Is(err, ErrSessionNotOpen) || !strings.Contains(err.Error(), "mcp_servers.private") {
		t.Fatalf("agent.New without an open session = %v, want ErrSessionNotOpen naming mcp_servers.private", err)
	}

	ctx := context.Background()
	sess, err := h.OpenSession(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	a, err := sess.NewAgent(&pidModel{}, agent.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := sess.Close(ctx); err != nil {
		t.Fatalf("second Close = %v", err)
	}
	res, err := a.Run(ctx, &agent.Input{Prompt: "pid?"})
	if !errors.Is(err, ErrSessionNotOpen) || res.Stop != agent.StopError {
		t.Fatalf("Run after the session closed = %v, %v; want StopError, ErrSessionNotOpen", res.Stop, err)
	}
}

// TestSessionNewAgent: the session value makes an agent at its scope, named "main" by default,
// whose run reaches the session's own server.
func TestSessionNewAgent(t *testing.T) {
	h := sessionServerHost(t)
	ctx := context.Background()
	sess, err := h.OpenSession(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close(ctx)
	if sess.ID() != "s1" || sess.Scope() != (ext.Scope{SessionID: "s1"}) {
		t.Fatalf("session %q, scope %s", sess.ID(), sess.Scope())
	}
	a, err := sess.NewAgent(&pidModel{}, agent.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := (ext.Scope{SessionID: "s1", AgentName: "main"}); a.Scope() != want {
		t.Errorf("agent scope %s, want %s", a.Scope(), want)
	}
	res, err := a.Run(ctx, &agent.Input{Prompt: "pid?"})
	if err != nil {
		t.Fatal(err)
	}
	if pid := strings.TrimPrefix(res.Text, "pid "); pid == "" || strings.Contains(res.Text, "no such tool") {
		t.Fatalf("the run did not reach the session's server: %q", res.Text)
	}
	if _, err := sess.NewAgent(&pidModel{}, agent.Options{Scope: ext.Scope{SessionID: "other"}}); err == nil {
		t.Error("NewAgent with another session's scope succeeded")
	}
}

// TestDefaultAgentNameTaken: a session that is not an agent's does not take the name of a
// config agent called "main" by default.
func TestDefaultAgentNameTaken(t *testing.T) {
	h := buildHost(t, filepath.Join(t.TempDir(), "x.yaml"), "agents:\n  main: {}\n", Options{})
	ctx := context.Background()
	sess, err := h.OpenSession(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close(ctx)
	if _, err := sess.NewAgent(&pidModel{}, agent.Options{}); err == nil || !strings.Contains(err.Error(), `"main"`) {
		t.Errorf("NewAgent = %v, want an error naming the agent main", err)
	}
	as, err := h.OpenAgentSession(ctx, "s2", "main")
	if err != nil {
		t.Fatal(err)
	}
	defer as.Close(ctx)
	a, err := as.NewAgent(&pidModel{}, agent.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := (ext.Scope{SessionID: "s2", AgentName: "main"}); a.Scope() != want {
		t.Errorf("agent scope %s, want %s", a.Scope(), want)
	}
}

// TestStaleSessionCloseLeavesReopened: a Session whose session was closed by id and opened
// again under the same id does not close the new one.
func TestStaleSessionCloseLeavesReopened(t *testing.T) {
	h := sessionServerHost(t)
	ctx := context.Background()
	old, err := h.OpenSession(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if err := h.CloseSession(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	sess, err := h.OpenSession(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close(ctx)
	if err := old.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := h.Registry.CheckSession("s1"); err != nil {
		t.Fatalf("the session opened again is closed by the first one's Close: %v", err)
	}
	if got := len(h.SessionServers("private")); got != 1 {
		t.Errorf("%d instances of the session's server, want the reopened session's one", got)
	}
}

// TestNewAgentOfAnotherAgent: a session makes no agent of the config's agents section other
// than its own: that agent's session-scoped servers run only in a session opened for it.
func TestNewAgentOfAnotherAgent(t *testing.T) {
	h := buildHost(t, filepath.Join(t.TempDir(), "x.yaml"), `
agents:
  a:
    mcp_servers:
      private: {command: /nonexistent/p, scope: session, lazy: true, tools: [{name: ping}]}
  b: {}
`, Options{})
	ctx := context.Background()
	plain, err := h.OpenSession(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close(ctx)
	if _, err := plain.NewAgent(&pidModel{}, agent.Options{Scope: ext.Scope{AgentName: "a"}}); err == nil || !strings.Contains(err.Error(), "OpenAgentSession") {
		t.Errorf("agent a in a session not opened for it = %v, want an error pointing at OpenAgentSession", err)
	}
	of, err := h.OpenAgentSession(ctx, "s2", "b")
	if err != nil {
		t.Fatal(err)
	}
	defer of.Close(ctx)
	if _, err := of.NewAgent(&pidModel{}, agent.Options{Scope: ext.Scope{AgentName: "a"}}); err == nil {
		t.Error("agent a made in agent b's session")
	}
	if _, err := of.NewAgent(&pidModel{}, agent.Options{Scope: ext.Scope{AgentName: "b"}}); err != nil {
		t.Errorf("agent b in its own session: %v", err)
	}
}

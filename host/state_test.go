package host

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"
	"weak"

	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
)

// A reader may append to State.Servers (to add an agent's servers, say) without writing into
// the published state: two readers appending at once must not share a backing array.
func TestStateServersAppendCopies(t *testing.T) {
	dir := t.TempDir()
	h := buildHost(t, filepath.Join(dir, "agentpool.yaml"), `mcp_servers:
  a: {command: /nonexistent/a, lazy: true, tools: [{name: x}]}
  b: {command: /nonexistent/b, lazy: true, tools: [{name: x}]}
  c: {command: /nonexistent/c, lazy: true, tools: [{name: x}]}
`, Options{})
	s := h.Current().Servers
	if len(s) != 3 {
		t.Fatalf("%d servers, want 3", len(s))
	}
	if cap(s) != len(s) {
		t.Errorf("State.Servers has spare capacity (len %d, cap %d): an append by one reader writes into what every reader shares", len(s), cap(s))
	}
}

// Replaced tells a reader that follows the host when to read Current again: the state in use is
// never replaced, and a reload replaces it, whatever it changed (here an agent added, which no
// pool-scope change announces). The new state has the agent's shared servers, not its
// session-scoped ones.
func TestStateReplacedByReload(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agentpool.yaml")
	h := buildHost(t, path, "mcp_servers:\n  a: {command: /nonexistent/a, lazy: true, tools: [{name: x}]}\n", Options{})
	first := h.Current()
	select {
	case <-first.Replaced():
		t.Fatal("the state in use says it was replaced")
	default:
	}
	next, err := config.Parse(path, []byte("mcp_servers:\n  a: {command: /nonexistent/a, lazy: true, tools: [{name: x}]}\n"+
		"agents:\n  b:\n    mcp_servers:\n      y: {command: /nonexistent/y, lazy: true, tools: [{name: x}]}\n      z: {command: /nonexistent/z, scope: session}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Reload(context.Background(), next); err != nil {
		t.Fatal(err)
	}
	select {
	case <-first.Replaced():
	default:
		t.Fatal("the state before the reload does not say it was replaced")
	}
	now := h.Current()
	if got := now.AgentServers("b"); len(got) != 1 || got[0].Status().Name != "y" {
		t.Errorf("agent b's servers after the reload: %v, want y", got)
	}
	if got := now.AgentServers("a"); len(got) != 0 {
		t.Errorf("servers of agent a, which the config does not have: %v", got)
	}
	select {
	case <-now.Replaced():
		t.Fatal("the state in use after the reload says it was replaced")
	default:
	}
	if (&State{}).Replaced() != nil {
		t.Error("a State no host published has a Replaced channel")
	}
}

// Next leads from a state to every one published after it (a reload may publish steps on its
// way), in order, however many a reader skipped by calling Current late; it is nil for the
// state in use.
func TestStateNextVisitsEveryState(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agentpool.yaml")
	h := buildHost(t, path, "agents:\n  z: {}\n", Options{})
	first := h.Current()
	if first.Next() != nil {
		t.Fatal("the state in use has a next state")
	}
	var published []*State
	for _, data := range []string{"agents:\n  a: {}\n", "agents:\n  b: {}\n"} {
		cfg, err := config.Parse(path, []byte(data))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.Reload(context.Background(), cfg); err != nil {
			t.Fatal(err)
		}
		published = append(published, h.Current())
	}
	var visited []*State
	for st := first.Next(); st != nil; st = st.Next() {
		visited = append(visited, st)
	}
	rest := published
	for _, st := range visited {
		if len(rest) > 0 && st == rest[0] {
			rest = rest[1:]
		}
	}
	if len(rest) != 0 || len(visited) == 0 || visited[len(visited)-1] != h.Current() {
		t.Errorf("Next from the first state visits %v, want the states published after each reload, %v, in order, ending with the one in use", visited, published)
	}
}

// A replaced State is let go while sessions opened under it (a pool session, an agent's with a
// session-scoped server) live on: since a State leads to every later one (Next), anything of
// the host's holding one it was made with would keep every state of every reload alive.
func TestReplacedStateCollectedWithSessionsOpen(t *testing.T) {
	bin := testserver.Build(t)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "agentpool.yaml")
	base := "mcp_servers:\n  shared: {command: /nonexistent/s, lazy: true, tools: [{name: ping}]}\n" +
		"agents:\n  a:\n    mcp_servers:\n      mine: {command: /nonexistent/a, lazy: true, tools: [{name: ping}]}\n" +
		"      private: {command: " + bin + ", scope: session}\n"
	h := buildHost(t, path, base, Options{})
	if _, err := h.OpenSession(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.OpenAgentSession(ctx, "s2", "a"); err != nil {
		t.Fatal(err)
	}
	reload := func(extra string) {
		t.Helper()
		cfg, err := config.Parse(path, []byte(base+extra))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.Reload(ctx, cfg); err != nil {
			t.Fatal(err)
		}
	}
	first := weak.Make(h.Current())
	reload("  b: {}\n")
	replaced := weak.Make(h.Current())
	reload("  c: {}\n")
	testwait.For(t, "the states the reloads replaced to be collected", func() bool {
		runtime.GC()
		return first.Value() == nil && replaced.Value() == nil
	})
}

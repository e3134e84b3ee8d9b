package ext

import (
	"context"
	"testing"
	"time"
)

// TestTouchAgent: touching an agent changes the stamp of every scope naming it (static and
// session-qualified) and of no other, and tells the subscribers of its scopes only.
func TestTouchAgent(t *testing.T) {
	r := newTestRegistry(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := r.Register(newCap("plain"), LevelPool, Scope{}); err != nil {
		t.Fatal(err)
	}
	scopes := []Scope{{}, {SessionID: "s1"}, {AgentName: "a"}, {SessionID: "s1", AgentName: "a"}, {SessionID: "s1", AgentName: "b"}}
	before := make([]Stamp, len(scopes))
	for i, s := range scopes {
		before[i] = r.Stamp(s)
	}
	mine := r.Changes(ctx, Scope{SessionID: "s1", AgentName: "a"})
	other := r.Changes(ctx, Scope{SessionID: "s1", AgentName: "b"})

	r.TouchAgent("a")
	for i, s := range scopes {
		if changed := r.Stamp(s) != before[i]; changed != (s.AgentName == "a") {
			t.Errorf("%s: stamp changed = %v, want %v", s, changed, s.AgentName == "a")
		}
	}
	if got := recv(t, mine); got.Kind != ToolsChanged || got.Capability != "agents.a" {
		t.Errorf("the agent's subscriber got %+v, want tools_changed of agents.a", got)
	}
	select {
	case ev := <-other:
		t.Fatalf("another agent's subscriber was told: %+v", ev)
	case <-time.After(50 * time.Millisecond):
	}
}

// TestTouchAgentHeld: a TouchAgent during a Hold (a config reload) is announced with the
// Hold's other announcements, at its release, not before them: the agent's session would be
// told mid-reload, list a half-applied registry, and be told again at the release. A
// capability's own event, never held, sent after the touch reaches the subscriber first.
func TestTouchAgentHeld(t *testing.T) {
	r := newTestRegistry(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	obs := newObsCap("obs")
	if err := r.Register(obs, LevelPool, Scope{}); err != nil {
		t.Fatal(err)
	}
	sub := r.Changes(ctx, Scope{SessionID: "s1", AgentName: "a"})
	release := r.Hold()
	before := r.Stamp(Scope{SessionID: "s1", AgentName: "a"})
	r.TouchAgent("a")
	if r.Stamp(Scope{SessionID: "s1", AgentName: "a"}) == before {
		t.Error("the stamp did not change at once")
	}
	obs.Emit(ChangeEvent{Kind: ToolsChanged})
	if got := recv(t, sub); got.Capability != "obs" {
		t.Fatalf("first event during the Hold: %+v, want the capability's own (obs)", got)
	}
	release()
	if got := recv(t, sub); got.Capability != "agents.a" {
		t.Fatalf("after release: %+v, want agents.a", got)
	}
}

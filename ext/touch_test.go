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

package ext

import (
	"context"
	"testing"
	"time"
)

// TestRegistrationIsAnnounced: registering and unregistering a capability while a scope is
// watched tells that scope's subscribers, with the kinds the capability offers (a skill
// source: skills_changed), and tells nobody who does not see it; a capability offering
// nothing is not announced.
func TestRegistrationIsAnnounced(t *testing.T) {
	r := newTestRegistry(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	mine := r.Changes(ctx, Scope{SessionID: "s1"})
	other := r.Changes(ctx, Scope{SessionID: "s2"})

	if err := r.Register(newCap("plain"), LevelPool, Scope{}); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(newSkillCap(t, "sk", "skill://a/SKILL.md"), LevelSession, Scope{SessionID: "s1"}); err != nil {
		t.Fatal(err)
	}
	want := ChangeEvent{Capability: "sk", Kind: SkillsChanged}
	if got := recv(t, mine); got != want {
		t.Fatalf("at Register got %+v, want %+v (the plain capability announced, or the registration not)", got, want)
	}
	if err := r.Unregister(LevelSession, Scope{SessionID: "s1"}, "sk"); err != nil {
		t.Fatal(err)
	}
	if got := recv(t, mine); got != want {
		t.Fatalf("at Unregister got %+v, want %+v", got, want)
	}
	select {
	case ev := <-other:
		t.Fatalf("session s2 was told of session s1's capability: %+v", ev)
	case <-time.After(50 * time.Millisecond):
	}
}

package ext

import (
	"context"
	"testing"
	"time"
)

// TestHoldDefersAnnouncements: while a Hold is in force, Register and Unregister announce
// nothing (queries already see the change); at its release every deferred announcement is
// delivered, the unregistered capability's included, and a second release does nothing.
func TestHoldDefersAnnouncements(t *testing.T) {
	r := newTestRegistry(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := r.Changes(ctx, Scope{SessionID: "s1"})
	if err := r.Register(newSkillCap(t, "old", "skill://old/SKILL.md"), LevelPool, Scope{}); err != nil {
		t.Fatal(err)
	}
	recv(t, events)

	release := r.Hold()
	outer := r.Hold() // holds nest: the last release delivers
	if err := r.Unregister(LevelPool, Scope{}, "old"); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(newSkillCap(t, "new", "skill://new/SKILL.md"), LevelPool, Scope{}); err != nil {
		t.Fatal(err)
	}
	if got := len(r.Visible(Scope{SessionID: "s1"})); got != 1 {
		t.Errorf("during the hold the scope sees %d capabilities, want 1 (the new one): queries are not held", got)
	}
	release()
	select {
	case ev := <-events:
		t.Fatalf("an announcement was delivered while a hold was still in force: %+v", ev)
	case <-time.After(50 * time.Millisecond):
	}
	outer()
	got := map[string]bool{}
	for range 2 {
		got[recv(t, events).Capability] = true
	}
	if !got["old"] || !got["new"] {
		t.Errorf("after the release got announcements of %v, want old (unregistered) and new", got)
	}
	outer()
	if err := r.Register(newSkillCap(t, "later", "skill://later/SKILL.md"), LevelPool, Scope{}); err != nil {
		t.Fatal(err)
	}
	if ev := recv(t, events); ev.Capability != "later" {
		t.Errorf("after the release, a registration announced %+v, want later's at once", ev)
	}
}

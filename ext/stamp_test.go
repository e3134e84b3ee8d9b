package ext

import "testing"

func TestStampChangesOnlyForScopesThatSeeTheChange(t *testing.T) {
	r := NewRegistry(nil)
	t.Cleanup(func() { _ = r.Close(t.Context()) })
	pool, a, b, agent := newObsCap("pool"), newObsCap("a"), newObsCap("b"), newObsCap("agent")
	mustRegister(t, r, pool, LevelPool, Scope{})
	mustRegister(t, r, a, LevelSession, Scope{SessionID: "A"})
	mustRegister(t, r, b, LevelSession, Scope{SessionID: "B"})
	mustRegister(t, r, agent, LevelAgent, Scope{SessionID: "A", AgentName: "helper"})

	scopes := map[string]Scope{
		"A": {SessionID: "A"}, "B": {SessionID: "B"}, "A/helper": {SessionID: "A", AgentName: "helper"},
	}
	stamps := func() map[string]Stamp {
		out := map[string]Stamp{}
		for k, s := range scopes {
			out[k] = r.Stamp(s)
		}
		return out
	}
	expect := func(step string, before map[string]Stamp, changed ...string) {
		t.Helper()
		after := stamps()
		for k := range scopes {
			want := false
			for _, c := range changed {
				want = want || c == k
			}
			if got := before[k] != after[k]; got != want {
				t.Errorf("%s: stamp of %s changed = %v, want %v", step, k, got, want)
			}
		}
	}

	s0 := stamps()
	a.Emit(ChangeEvent{Kind: ToolsChanged})
	expect("event in session A", s0, "A", "A/helper")

	s1 := stamps()
	agent.Emit(ChangeEvent{Kind: ToolsChanged})
	expect("event of A's agent", s1, "A/helper")

	s2 := stamps()
	pool.Emit(ChangeEvent{Kind: SkillsChanged})
	expect("event at pool", s2, "A", "B", "A/helper")

	s3 := stamps()
	mustRegister(t, r, newObsCap("late"), LevelSession, Scope{SessionID: "B"})
	expect("registration in B", s3, "B")

	s4 := stamps()
	if err := r.Unregister(LevelSession, Scope{SessionID: "B"}, "late"); err != nil {
		t.Fatal(err)
	}
	expect("unregistration in B", s4, "B")
	if r.Stamp(scopes["B"]) != s3["B"] {
		t.Error("B's stamp after register and unregister differs from before, though B sees the same")
	}

	s5 := stamps()
	mustRegister(t, r, newObsCap("other"), LevelSession, Scope{SessionID: "C"})
	expect("a new session", s5)
}

func mustRegister(t *testing.T, r *Registry, c Capability, level ScopeLevel, slot Scope) {
	t.Helper()
	if err := r.Register(c, level, slot); err != nil {
		t.Fatal(err)
	}
}

// lateObserver is a capability whose content changes (and is announced) in the window between
// Register making it visible and Register subscribing to it: before observing, it lets a
// "view" take a stamp, then changes and emits while nobody listens yet.
type lateObserver struct {
	obsCap
	before func()
}

func (c *lateObserver) Observe(fn func(ChangeEvent)) (stop func()) {
	if c.before != nil {
		c.before()
	}
	return c.obsCap.Observe(fn)
}

// A change announced while Register is still between making a capability visible and
// observing it must still move the stamp: a view compiled in that window (it saw the
// capability, and its old content) would otherwise be kept forever.
func TestStampSeesChangeDuringRegister(t *testing.T) {
	r := NewRegistry(nil)
	t.Cleanup(func() { _ = r.Close(t.Context()) })
	c := &lateObserver{obsCap: *newObsCap("srv")}
	var compiled Stamp
	visible := false
	c.before = func() {
		compiled = r.Stamp(Scope{}) // a view compiled now
		visible = len(r.Visible(Scope{})) == 1
		c.Emit(ChangeEvent{Kind: ToolsChanged}) // then the content changes
	}
	mustRegister(t, r, c, LevelPool, Scope{})
	if visible && r.Stamp(Scope{}) == compiled {
		t.Fatal("a change announced during Register left the stamp of a view that predates it unchanged")
	}
}

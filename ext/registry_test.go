package ext

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// valueCap is a Capability implemented by a non-comparable value type.
type valueCap struct{ tags []string }

func (valueCap) Name() string                { return "value" }
func (valueCap) Close(context.Context) error { return nil }

func names(caps []Capability) []string {
	out := make([]string, 0, len(caps))
	for _, c := range caps {
		out = append(out, c.Name())
	}
	return out
}

func newTestRegistry(t *testing.T) *Registry {
	t.Helper()
	r := NewRegistry(nil)
	t.Cleanup(func() {
		if err := r.Close(context.Background()); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return r
}

func TestRegisterRejectsBadInput(t *testing.T) {
	r := newTestRegistry(t)
	var nilPtr *testCap
	cases := []struct {
		name  string
		cap   Capability
		level ScopeLevel
		slot  Scope
		opts  []RegisterOption
		want  string
	}{
		{"nil", nil, LevelPool, Scope{}, nil, "nil capability"},
		{"typed nil", nilPtr, LevelPool, Scope{}, nil, "nil *ext.testCap"},
		{"not comparable", valueCap{}, LevelPool, Scope{}, nil, "not comparable"},
		{"empty name", newCap(""), LevelPool, Scope{}, nil, "empty name"},
		{"session without id", newCap("a"), LevelSession, Scope{}, nil, "needs a SessionID"},
		{"agent without name", newCap("a"), LevelAgent, Scope{SessionID: "s"}, nil, "needs an AgentName"},
		{"turn without agent", newCap("a"), LevelTurn, Scope{SessionID: "s", TurnID: "t"}, nil, "needs SessionID, AgentName and TurnID"},
		{"turn without session", newCap("a"), LevelTurn, Scope{AgentName: "a", TurnID: "t"}, nil, "needs SessionID, AgentName and TurnID"},
		{"unknown level", newCap("a"), ScopeLevel(9), Scope{}, nil, "unknown scope level"},
		{"other pool", newCap("a"), LevelPool, Scope{PoolID: "other"}, nil, `pool "other"`},
		{"bad scheme", newCap("a"), LevelPool, Scope{}, []RegisterOption{WithSchemes("9x")}, "invalid scheme"},
		{"reserved scheme", newCap("a"), LevelPool, Scope{}, []RegisterOption{WithSchemes("MCP")}, "reserved"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := r.Register(tc.cap, tc.level, tc.slot, tc.opts...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Register: got %v, want error containing %q", err, tc.want)
			}
		})
	}
	if got := r.Visible(Scope{SessionID: "s", AgentName: "a", TurnID: "t"}); len(got) != 0 {
		t.Fatalf("rejected registrations are visible: %v", names(got))
	}
}

func TestRegisterDuplicateAndUnregister(t *testing.T) {
	r := newTestRegistry(t)
	a := newCap("a")
	if err := r.Register(a, LevelSession, Scope{SessionID: "s1"}); err != nil {
		t.Fatal(err)
	}
	err := r.Register(newCap("a"), LevelSession, Scope{SessionID: "s1"})
	if !errors.Is(err, ErrDuplicate) {
		t.Fatalf("second a in s1: got %v, want ErrDuplicate", err)
	}
	// The same name in another slot is fine.
	if err := r.Register(newCap("a"), LevelSession, Scope{SessionID: "s2"}); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(newCap("a"), LevelPool, Scope{}); err != nil {
		t.Fatal(err)
	}
	if got := names(r.Visible(Scope{SessionID: "s1"})); !cmp.Equal(got, []string{"a", "a"}) {
		t.Fatalf("visible in s1: %v", got)
	}
	if err := r.Unregister(LevelSession, Scope{SessionID: "s1"}, "a"); err != nil {
		t.Fatal(err)
	}
	if a.closes.Load() != 0 {
		t.Fatal("Unregister closed the capability")
	}
	if err := r.Unregister(LevelSession, Scope{SessionID: "s1"}, "a"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second Unregister: got %v, want ErrNotFound", err)
	}
	if err := r.Unregister(LevelTurn, Scope{SessionID: "s1"}, "a"); err == nil {
		t.Fatal("Unregister with an invalid slot succeeded")
	}
	if len(r.sessions) != 1 {
		t.Fatalf("empty session slots are kept: %d sessions indexed", len(r.sessions))
	}
}

func TestVisibleOrderAndIgnoredFields(t *testing.T) {
	r := newTestRegistry(t)
	reg := func(name string, level ScopeLevel, slot Scope) {
		t.Helper()
		if err := r.Register(newCap(name), level, slot); err != nil {
			t.Fatal(err)
		}
	}
	full := Scope{SessionID: "s", AgentName: "ag", TurnID: "t"}
	reg("turn1", LevelTurn, full)
	reg("sqagent1", LevelAgent, Scope{SessionID: "s", AgentName: "ag"})
	reg("static1", LevelAgent, Scope{AgentName: "ag"})
	reg("session1", LevelSession, full) // AgentName and TurnID do not matter at session level
	reg("pool1", LevelPool, full)       // nothing matters at pool level
	reg("pool2", LevelPool, Scope{})
	reg("turn2", LevelTurn, full)
	reg("static2", LevelAgent, Scope{AgentName: "ag", TurnID: "ignored"})

	want := []string{"pool1", "pool2", "session1", "static1", "static2", "sqagent1", "turn1", "turn2"}
	if got := names(r.Visible(full)); !cmp.Equal(got, want) {
		t.Fatalf("Visible order:\n%s", cmp.Diff(want, got))
	}
	if got := names(r.Visible(Scope{PoolID: "default", SessionID: "s", AgentName: "ag"})); !cmp.Equal(got, want[:6]) {
		t.Fatalf("agent view: %v", got)
	}
	if got := names(r.Visible(Scope{AgentName: "ag", TurnID: "t"})); !cmp.Equal(got, []string{"pool1", "pool2", "static1", "static2"}) {
		t.Fatalf("session-less agent view: %v", got)
	}
	if got := r.Visible(Scope{PoolID: "elsewhere", SessionID: "s", AgentName: "ag", TurnID: "t"}); got != nil {
		t.Fatalf("another pool sees %v", names(got))
	}
	if got := names(r.Visible(Scope{SessionID: "other", AgentName: "ag", TurnID: "t"})); !cmp.Equal(got, []string{"pool1", "pool2", "static1", "static2"}) {
		t.Fatalf("other session view: %v", got)
	}
}

func TestTypedQueries(t *testing.T) {
	r := newTestRegistry(t)
	sk := newSkillCap(t, "skills")
	mc := newMCPCap(t, "srv", nil)
	ob := newObsCap("obs")
	plain := newCap("plain")
	for _, c := range []Capability{plain, sk, mc, ob} {
		if err := r.Register(c, LevelPool, Scope{}); err != nil {
			t.Fatal(err)
		}
	}
	s := Scope{}
	if got := r.SkillResources(s); len(got) != 2 || got[0] != SkillResource(sk) || got[1] != SkillResource(mc) {
		t.Fatalf("SkillResources: %v", got)
	}
	if got := r.MCPResources(s); len(got) != 1 || got[0] != MCPResource(mc) {
		t.Fatalf("MCPResources: %v", got)
	}
	if got := r.Observables(s); len(got) != 1 || got[0] != ChangeObservable(ob) {
		t.Fatalf("Observables: %v", got)
	}
	if got := r.CommandResources(s); len(got) != 0 {
		t.Fatalf("CommandResources: %v", got)
	}
}

func TestClosedRegistryRefusesWork(t *testing.T) {
	r := NewRegistry(nil)
	c := newCap("a")
	if err := r.Register(c, LevelPool, Scope{}); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(newCap("b"), LevelPool, Scope{}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Register after Close: %v", err)
	}
	if err := r.Unregister(LevelPool, Scope{}, "a"); !errors.Is(err, ErrClosed) {
		t.Fatalf("Unregister after Close: %v", err)
	}
	if err := r.CloseScope(context.Background(), Scope{SessionID: "s"}); !errors.Is(err, ErrClosed) {
		t.Fatalf("CloseScope after Close: %v", err)
	}
	if err := r.AddChild(c, newCap("x")); !errors.Is(err, ErrClosed) {
		t.Fatalf("AddChild after Close: %v", err)
	}
	if got := r.Visible(Scope{}); len(got) != 0 {
		t.Fatalf("Visible after Close: %v", names(got))
	}
	if _, ok := <-r.Changes(context.Background(), Scope{}); ok {
		t.Fatal("Changes after Close delivered an event")
	}
}

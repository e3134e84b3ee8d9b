package view_test

import (
	"context"
	"sync"
	"testing"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/view"
)

// A tools_changed from one server invalidates the cached views of exactly the scopes that see
// it: the session that holds it and that session's agent, not the other session.
func TestCacheInvalidatesOnlyScopesThatSeeTheChange(t *testing.T) {
	r := newRegistry(t)
	pool := newFake("skills", ext.OriginLocal, "load_skill")
	a := newFake("a", ext.OriginRemote, "a__one")
	b := newFake("b", ext.OriginRemote, "b__one")
	helper := newFake("helper", ext.OriginRemote, "helper__one")
	register(t, r, pool, ext.LevelPool, ext.Scope{})
	register(t, r, a, ext.LevelSession, ext.Scope{SessionID: "A"})
	register(t, r, b, ext.LevelSession, ext.Scope{SessionID: "B"})
	register(t, r, helper, ext.LevelAgent, ext.Scope{SessionID: "A", AgentName: "helper"})

	c := view.NewCache(r, nil)
	ctx := context.Background()
	scopes := []ext.Scope{{SessionID: "A"}, {SessionID: "B"}, {SessionID: "A", AgentName: "helper"}}
	get := func() []*view.View {
		var out []*view.View
		for _, s := range scopes {
			v, err := c.Get(ctx, s)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, v)
		}
		return out
	}
	first := get()
	again := get()
	for i := range scopes {
		if first[i] != again[i] {
			t.Fatalf("%s: recompiled with nothing changed", scopes[i])
		}
	}

	a.set(func(f *fakeCap) { f.tools = append(f.tools, ext.ToolEntry{Name: "a__two"}) })
	a.Emit(ext.ChangeEvent{Capability: "a", Kind: ext.ToolsChanged})
	after := get()
	for i, s := range scopes {
		changed := after[i] != again[i]
		if want := s.SessionID == "A"; changed != want {
			t.Errorf("%s: recompiled = %v, want %v", s, changed, want)
		}
	}
	if _, ok := after[0].Tool("a__two"); !ok {
		t.Error("session A's view lacks the new tool")
	}
	if _, ok := after[2].Tool("a__two"); !ok {
		t.Error("session A's agent's view lacks the new tool")
	}

	// A pool change reaches every scope; a registration in another session none but it.
	pool.Emit(ext.ChangeEvent{Capability: "skills", Kind: ext.SkillsChanged})
	afterPool := get()
	for i, s := range scopes {
		if afterPool[i] == after[i] {
			t.Errorf("%s: not recompiled after a pool change", s)
		}
	}
	register(t, r, newFake("c", ext.OriginRemote, "c__one"), ext.LevelSession, ext.Scope{SessionID: "C"})
	final := get()
	for i, s := range scopes {
		if final[i] != afterPool[i] {
			t.Errorf("%s: recompiled after a registration in another session", s)
		}
	}
	c.Forget(ext.Scope{SessionID: "B"})
	if c.Len() != 2 {
		t.Errorf("Len after Forget = %d, want 2", c.Len())
	}
}

// Concurrent Gets of a stale scope compile it once.
func TestCacheCompilesOnceForConcurrentGets(t *testing.T) {
	r := newRegistry(t)
	f := newFake("a", ext.OriginRemote, "a__one")
	register(t, r, f, ext.LevelPool, ext.Scope{})
	c := view.NewCache(r, nil)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			if _, err := c.Get(context.Background(), ext.Scope{}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := f.lists.Load(); n != 1 {
		t.Fatalf("tools listed %d times for 16 concurrent Gets, want 1", n)
	}
}

func TestCacheForgetSession(t *testing.T) {
	r := newRegistry(t)
	register(t, r, newFake("a", ext.OriginLocal, "a"), ext.LevelPool, ext.Scope{})
	c := view.NewCache(r, nil)
	ctx := context.Background()
	for _, s := range []ext.Scope{{SessionID: "s"}, {SessionID: "s", AgentName: "x"}, {SessionID: "s", AgentName: "x", TurnID: "1"}, {SessionID: "t"}} {
		if _, err := c.Get(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	c.ForgetSession("s")
	if c.Len() != 1 {
		t.Fatalf("Len after ForgetSession = %d, want 1 (session t's)", c.Len())
	}
}

// Scopes that see the same commands hold one list of them; a scope that sees another command
// has its own, and each finds its commands by name.
func TestCacheScopesShareIdenticalCommands(t *testing.T) {
	r := newRegistry(t)
	a := newFake("a", ext.OriginLocal)
	a.cmds = []ext.CommandEntry{{Name: "review", Source: "file"}, {Name: "plan", Source: "file"}}
	register(t, r, a, ext.LevelPool, ext.Scope{})
	c := newFake("c", ext.OriginLocal)
	c.cmds = []ext.CommandEntry{{Name: "ship", Source: "file"}}
	register(t, r, c, ext.LevelSession, ext.Scope{SessionID: "C"})
	cache := view.NewCache(r, nil)
	get := func(id string) *view.View {
		t.Helper()
		v, err := cache.Get(context.Background(), ext.Scope{SessionID: id})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	va, vb, vc := get("A"), get("B"), get("C")
	if len(va.Commands) != 2 || &va.Commands[0] != &vb.Commands[0] {
		t.Error("two sessions seeing the same commands hold a list each")
	}
	if len(vc.Commands) != 3 || &vc.Commands[0] == &va.Commands[0] {
		t.Errorf("session C's commands %v share session A's list", vc.Commands)
	}
	for _, v := range []*view.View{va, vb, vc} {
		if cmd, ok := v.Command("/review"); !ok || cmd.Name != "review" || cmd.Capability != "a" {
			t.Errorf("%s: review = %+v, %v", v.Scope, cmd, ok)
		}
	}
	if _, ok := vc.Command("ship"); !ok {
		t.Error("session C does not find its own command")
	}
	if _, ok := va.Command("ship"); ok {
		t.Error("session A finds session C's command")
	}
}

// Scopes that see the same tools hold one list of them, however many sessions there are; a
// scope that sees another tool, or the same name from another capability, has its own.
func TestCacheScopesShareIdenticalTools(t *testing.T) {
	r := newRegistry(t)
	register(t, r, newFake("a", ext.OriginRemote, "a__one", "a__two"), ext.LevelPool, ext.Scope{})
	register(t, r, newFake("c", ext.OriginRemote, "c__one"), ext.LevelSession, ext.Scope{SessionID: "C"})
	register(t, r, newFake("d", ext.OriginRemote, "c__one"), ext.LevelSession, ext.Scope{SessionID: "D"})
	c := view.NewCache(r, nil)
	get := func(id string) *view.View {
		t.Helper()
		v, err := c.Get(context.Background(), ext.Scope{SessionID: id})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	a, b, cv, d := get("A"), get("B"), get("C"), get("D")
	if &a.Tools[0] != &b.Tools[0] {
		t.Error("two sessions seeing the same tools hold a list each")
	}
	if len(cv.Tools) != 3 || &cv.Tools[0] == &a.Tools[0] {
		t.Errorf("session C's tools %v share session A's list", cv.Tools)
	}
	if &cv.Tools[0] == &d.Tools[0] {
		t.Error("sessions whose tool of one name comes from different capabilities share a list")
	}
	for _, v := range []*view.View{a, b, cv, d} {
		if tool, ok := v.Tool("a__one"); !ok || tool.Name != "a__one" {
			t.Errorf("%s: a__one = %+v, %v", v.Scope, tool, ok)
		}
	}
	if tool, ok := d.Tool("c__one"); !ok || tool.Capability != "d" {
		t.Errorf("session D's c__one = %+v, %v; want capability d's", tool, ok)
	}
}

// Two sessions each with a server of their own under the same name, with the same commands
// from the same origin, do not share a list: each command is its own session's instance's.
func TestCacheCommandsOfOtherInstancesNotShared(t *testing.T) {
	r := newRegistry(t)
	for _, id := range []string{"C", "D"} {
		f := newFake("c", ext.OriginLocal)
		f.cmds = []ext.CommandEntry{{Name: "ship", Source: "file"}}
		register(t, r, f, ext.LevelSession, ext.Scope{SessionID: id})
	}
	cache := view.NewCache(r, nil)
	var vs []*view.View
	for _, id := range []string{"C", "D"} {
		v, err := cache.Get(context.Background(), ext.Scope{SessionID: id})
		if err != nil {
			t.Fatal(err)
		}
		if len(v.Commands) != 1 {
			t.Fatalf("session %s: commands %v", id, v.Commands)
		}
		vs = append(vs, v)
	}
	if &vs[0].Commands[0] == &vs[1].Commands[0] {
		t.Error("two sessions' commands from two instances share one list")
	}
}

package view_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/view"
)

// Sessions that see exactly the same registrations (none of their own: just the pool's) share
// one compile: the pool's server is listed once for all of them, and each gets a view with its
// own Scope. A session with a capability of its own compiles its own view, which no other
// session sees, and a change recompiles once for the sessions that still share.
func TestCacheSharesTheCompileOfTwinScopes(t *testing.T) {
	r := newRegistry(t)
	pool := newFake("pool", ext.OriginRemote, "pool__one")
	register(t, r, pool, ext.LevelPool, ext.Scope{})
	c := view.NewCache(r, nil)
	ctx := context.Background()
	get := func(s ext.Scope) *view.View {
		t.Helper()
		v, err := c.Get(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		if v.Scope != s {
			t.Fatalf("the view of %s says its scope is %s", s, v.Scope)
		}
		return v
	}

	for i := range 10 {
		get(ext.Scope{SessionID: fmt.Sprint("S", i)})
	}
	if n := pool.lists.Load(); n != 1 {
		t.Errorf("10 sessions seeing only the pool listed its tools %d times, want 1 (one compile shared)", n)
	}

	own := newFake("own", ext.OriginRemote, "own__one")
	register(t, r, own, ext.LevelSession, ext.Scope{SessionID: "S0"})
	if _, ok := get(ext.Scope{SessionID: "S0"}).Tool("own__one"); !ok {
		t.Error("session S0 does not see its own server")
	}
	if _, ok := get(ext.Scope{SessionID: "S1"}).Tool("own__one"); ok {
		t.Error("session S1 sees session S0's own server")
	}

	before := pool.lists.Load()
	pool.set(func(f *fakeCap) { f.tools = append(f.tools, ext.ToolEntry{Name: "pool__two"}) })
	pool.Emit(ext.ChangeEvent{Capability: "pool", Kind: ext.ToolsChanged})
	for i := range 10 {
		v := get(ext.Scope{SessionID: fmt.Sprint("S", i)})
		if _, ok := v.Tool("pool__two"); !ok {
			t.Errorf("session S%d does not see the pool's new tool", i)
		}
		if _, ok := v.Tool("own__one"); ok != (i == 0) {
			t.Errorf("session S%d sees own__one = %v", i, ok)
		}
	}
	if n := pool.lists.Load() - before; n != 2 {
		t.Errorf("after a change the pool's tools were listed %d times, want 2 (S0's own view, and one shared by the nine others)", n)
	}
}

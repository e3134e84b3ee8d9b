package host

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/ext"
)

// TestNewKindReloads: an extension kind is one entry of the kinds table. A fake kind added to
// the table, with no other code, is built with the host and follows reloads: a declaration
// added is registered, one changed is replaced (the old capability closed), one unchanged
// keeps its capability, one removed is unregistered and closed, and ReloadResult says so.
func TestNewKindReloads(t *testing.T) {
	section := map[string]string{"a": "1", "b": "1"} // the fake kind's declarations, by name
	made := map[string][]*closeRecorder{}            // by name, every capability made, in order
	withKind(t, kind{"fake", func(pl *planner) error {
		for _, name := range slices.Sorted(maps.Keys(section)) {
			owner := "fake." + name
			pl.declare(owner, section[name])
			pl.add(&Entry{Key: Key{Level: ext.LevelPool, Name: "fake-" + name}, Owner: owner, Source: owner, Decl: section[name],
				start: func(context.Context, *batch) (ext.Capability, error) {
					c := &closeRecorder{name: "fake-" + name}
					made[name] = append(made[name], c)
					return c, nil
				}})
		}
		return nil
	}})
	h := buildHost(t, "x.yaml", "skills: {dirs: []}\n", Options{})
	capOf := func(name string) ext.Capability {
		for _, c := range h.Registry.Visible(ext.Scope{}) {
			if c.Name() == name {
				return c
			}
		}
		return nil
	}
	if capOf("fake-a") != made["a"][0] || capOf("fake-b") != made["b"][0] {
		t.Fatalf("after Build: fake-a %v, fake-b %v", capOf("fake-a"), capOf("fake-b"))
	}
	reload := func() ReloadResult {
		t.Helper()
		cfg, err := config.Parse("x.yaml", []byte("skills: {dirs: []}\n"))
		if err != nil {
			t.Fatal(err)
		}
		res, err := h.Reload(context.Background(), cfg)
		if err != nil || len(res.Failed) > 0 {
			t.Fatalf("reload: %+v, %v", res, err)
		}
		return res
	}

	section = map[string]string{"a": "2", "b": "1", "c": "1"}
	res := reload()
	if !slices.Equal(res.Added, []string{"fake.c"}) || !slices.Equal(res.Changed, []string{"fake.a"}) || len(res.Removed) > 0 {
		t.Errorf("added and changed: %+v", res)
	}
	if len(made["a"]) != 2 || capOf("fake-a") != made["a"][1] || made["a"][0].closed.Load() != 1 || made["a"][1].closed.Load() != 0 {
		t.Errorf("changed fake-a: not replaced by a new one, or the old one not closed once")
	}
	if len(made["b"]) != 1 || capOf("fake-b") != made["b"][0] || made["b"][0].closed.Load() != 0 {
		t.Errorf("unchanged fake-b was replaced or closed")
	}
	if len(made["c"]) != 1 || capOf("fake-c") != made["c"][0] {
		t.Errorf("added fake-c not registered")
	}

	if res := reload(); !res.Empty() {
		t.Errorf("the same declarations again: %+v, want nothing changed", res)
	}

	section = map[string]string{"b": "1"}
	res = reload()
	if !slices.Equal(res.Removed, []string{"fake.a", "fake.c"}) || len(res.Added)+len(res.Changed) > 0 {
		t.Errorf("removed: %+v", res)
	}
	if capOf("fake-a") != nil || capOf("fake-c") != nil || made["a"][1].closed.Load() != 1 || made["c"][0].closed.Load() != 1 {
		t.Errorf("removed fake-a and fake-c: still registered, or not closed once")
	}
	if capOf("fake-b") != made["b"][0] {
		t.Errorf("fake-b did not stay")
	}
}

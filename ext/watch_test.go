package ext

import (
	"context"
	"runtime"
	"testing"
)

// A Watch carries what Changes carries, with no goroutine of its own: notify says an event is
// pending, Take hands the pending events over, coalesced, and only what the scope sees.
func TestWatchWithoutGoroutine(t *testing.T) {
	r := newTestRegistry(t)
	mine, other := newObsCap("mine"), newObsCap("other")
	if err := r.Register(mine, LevelSession, Scope{SessionID: "s1"}); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(other, LevelSession, Scope{SessionID: "s2"}); err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	notified := 0
	w := r.Watch(Scope{SessionID: "s1"}, func() { notified++ })
	defer w.Stop()
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines after Watch, %d before", n, before)
	}
	if got := w.Take(); len(got) != 0 {
		t.Fatalf("Take before any event: %+v", got)
	}
	mine.Emit(ChangeEvent{Kind: ToolsChanged})
	mine.Emit(ChangeEvent{Kind: ToolsChanged})
	mine.Emit(ChangeEvent{Kind: ResourcesChanged, SourceURI: "file:///a"})
	other.Emit(ChangeEvent{Kind: ToolsChanged})
	if notified == 0 {
		t.Fatal("notify not called for a visible event")
	}
	got := w.Take()
	want := []ChangeEvent{{Capability: "mine", Kind: ToolsChanged}, {Capability: "mine", Kind: ResourcesChanged, SourceURI: "file:///a"}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("Take: %+v, want %+v", got, want)
	}
	if got := w.Take(); len(got) != 0 {
		t.Fatalf("Take again: %+v", got)
	}
}

// A Watch ends at Stop (twice is fine), when CloseScope ends its scope, and at Close: Done is
// closed and nothing more is notified.
func TestWatchEnds(t *testing.T) {
	r := NewRegistry(nil)
	c := newObsCap("c")
	if err := r.Register(c, LevelPool, Scope{}); err != nil {
		t.Fatal(err)
	}
	stopped := r.Watch(Scope{SessionID: "a"}, func() {})
	stopped.Stop()
	stopped.Stop()
	notified := 0
	scoped := r.Watch(Scope{SessionID: "b"}, func() { notified++ })
	if err := r.CloseScope(context.Background(), Scope{SessionID: "b"}); err != nil {
		t.Fatal(err)
	}
	closed := r.Watch(Scope{SessionID: "c"}, func() {})
	foreign := r.Watch(Scope{PoolID: "elsewhere"}, func() {})
	if err := r.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	late := r.Watch(Scope{SessionID: "d"}, func() {})
	for name, w := range map[string]*Watch{"stopped": stopped, "scope closed": scoped, "registry closed": closed, "after Close": late, "other pool": foreign} {
		select {
		case <-w.Done():
		default:
			t.Errorf("%s: Done not closed", name)
		}
	}
	c.Emit(ChangeEvent{Kind: ToolsChanged})
	if notified != 0 || len(scoped.Take()) != 0 {
		t.Errorf("an ended watch was notified (%d) or holds events", notified)
	}
}

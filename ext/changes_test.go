package ext

import (
	"context"
	"strconv"
	"testing"
	"time"
)

const waitLimit = 20 * time.Second

// recv waits for the next event or fails.
func recv(t *testing.T, ch <-chan ChangeEvent) ChangeEvent {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatal("stream closed, want an event")
		}
		return ev
	case <-time.After(waitLimit):
		t.Fatal("no event within the limit")
	}
	return ChangeEvent{}
}

// waitClosed waits for ch to be closed, draining events.
func waitClosed(t *testing.T, ch <-chan ChangeEvent) {
	t.Helper()
	deadline := time.After(waitLimit)
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("stream not closed within the limit")
		}
	}
}

func notifierSubs(n *Notifier) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.subs)
}

func TestChangesIncludesLateRegistrationAndOnlyVisible(t *testing.T) {
	r := newTestRegistry(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := r.Changes(ctx, Scope{SessionID: "s1", AgentName: "ag"})

	other := newObsCap("other")
	late := newObsCap("late")
	if err := r.Register(other, LevelSession, Scope{SessionID: "s2"}); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(late, LevelAgent, Scope{SessionID: "s1", AgentName: "ag"}); err != nil {
		t.Fatal(err)
	}
	other.Emit(ChangeEvent{Capability: "other", Kind: ToolsChanged})
	late.Emit(ChangeEvent{Kind: SkillsChanged, SourceURI: "skill://x/SKILL.md"})
	got := recv(t, ch)
	want := ChangeEvent{Capability: "late", Kind: SkillsChanged, SourceURI: "skill://x/SKILL.md"}
	if got != want {
		t.Fatalf("got %+v, want %+v (an invisible capability's event leaked, or the name was not filled)", got, want)
	}
}

func TestChangesUnregisterStopsObserving(t *testing.T) {
	r := newTestRegistry(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, b := newObsCap("a"), newObsCap("b")
	for _, c := range []*obsCap{a, b} {
		if err := r.Register(c, LevelPool, Scope{}); err != nil {
			t.Fatal(err)
		}
	}
	if n := notifierSubs(&a.Notifier); n != 1 {
		t.Fatalf("Observe called %d times at Register, want 1", n)
	}
	ch := r.Changes(ctx, Scope{})
	if err := r.Unregister(LevelPool, Scope{}, "a"); err != nil {
		t.Fatal(err)
	}
	if n := notifierSubs(&a.Notifier); n != 0 {
		t.Fatalf("%d observers left after Unregister", n)
	}
	a.Emit(ChangeEvent{Capability: "a", Kind: ToolsChanged})
	b.Emit(ChangeEvent{Capability: "b", Kind: ToolsChanged})
	if got := recv(t, ch); got.Capability != "b" {
		t.Fatalf("got %+v from an unregistered capability", got)
	}
}

func TestChangesSlowSubscriberNeverBlocksAndKeepsTheFact(t *testing.T) {
	r := newTestRegistry(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	prod := newObsCap("prod")
	marker := newObsCap("marker")
	for _, c := range []*obsCap{prod, marker} {
		if err := r.Register(c, LevelPool, Scope{}); err != nil {
			t.Fatal(err)
		}
	}
	ch := r.Changes(ctx, Scope{SessionID: "s"}) // never read until the producer is done

	const events = 100_000
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range events {
			prod.Emit(ChangeEvent{Capability: "prod", Kind: ResourcesChanged, SourceURI: "test://r/" + strconv.Itoa(i)})
		}
	}()
	select {
	case <-done:
	case <-time.After(waitLimit * 3):
		t.Fatal("producer blocked by a subscriber that does not read")
	}
	marker.Emit(ChangeEvent{Capability: "marker", Kind: ToolsChanged})

	var specific, collapsed int
	for {
		ev := recv(t, ch)
		if ev.Capability == "marker" {
			break
		}
		if ev.Capability != "prod" || ev.Kind != ResourcesChanged {
			t.Fatalf("unexpected event %+v", ev)
		}
		if ev.SourceURI == "" {
			collapsed++
		} else {
			specific++
		}
	}
	// One event may have been taken before the subscriber's set filled up.
	if specific > maxPending+1 || collapsed != 1 {
		t.Fatalf("got %d specific and %d collapsed events, want at most %d and exactly 1", specific, collapsed, maxPending+1)
	}
	t.Logf("%d events coalesced to %d specific + %d collapsed", events, specific, collapsed)
}

func TestChangesCoalescesRepeats(t *testing.T) {
	r := newTestRegistry(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, marker := newObsCap("a"), newObsCap("marker")
	for _, c := range []*obsCap{a, marker} {
		if err := r.Register(c, LevelSession, Scope{SessionID: "s"}); err != nil {
			t.Fatal(err)
		}
	}
	ch := r.Changes(ctx, Scope{SessionID: "s"})
	for range 1000 {
		a.Emit(ChangeEvent{Capability: "a", Kind: ToolsChanged})
		a.Emit(ChangeEvent{Capability: "a", Kind: PromptsChanged})
	}
	marker.Emit(ChangeEvent{Capability: "marker", Kind: ToolsChanged})
	var got []ChangeEvent
	for {
		ev := recv(t, ch)
		if ev.Capability == "marker" {
			break
		}
		got = append(got, ev)
	}
	// The first event may be in flight before the rest arrive; at most it repeats once.
	if len(got) < 2 || len(got) > 4 {
		t.Fatalf("2000 repeated events of 2 kinds delivered as %d: %+v", len(got), got)
	}
	seen := map[ChangeKind]bool{}
	for _, ev := range got {
		seen[ev.Kind] = true
	}
	if !seen[ToolsChanged] || !seen[PromptsChanged] {
		t.Fatalf("a kind was lost: %+v", got)
	}
}

func TestChangesEndWithScope(t *testing.T) {
	r := newTestRegistry(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sub := func(s Scope) <-chan ChangeEvent { return r.Changes(ctx, s) }

	turn := sub(Scope{SessionID: "s1", AgentName: "ag", TurnID: "t1"})
	otherTurn := sub(Scope{SessionID: "s1", AgentName: "ag", TurnID: "t2"})
	sessAgent := sub(Scope{SessionID: "s1", AgentName: "ag"})
	sess := sub(Scope{SessionID: "s1"})
	otherSess := sub(Scope{SessionID: "s2", AgentName: "ag"})
	static := sub(Scope{AgentName: "ag"})
	foreign := sub(Scope{PoolID: "other"})
	waitClosed(t, foreign)

	pool := newObsCap("pool")
	if err := r.Register(pool, LevelPool, Scope{}); err != nil {
		t.Fatal(err)
	}
	alive := func(name string, ch <-chan ChangeEvent) {
		t.Helper()
		pool.Emit(ChangeEvent{Capability: "pool", Kind: ToolsChanged})
		if ev := recv(t, ch); ev.Capability != "pool" {
			t.Fatalf("%s: got %+v", name, ev)
		}
	}

	if err := r.CloseScope(ctx, Scope{SessionID: "s1", AgentName: "ag", TurnID: "t1"}); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, turn)
	alive("other turn", otherTurn)

	if err := r.CloseScope(ctx, Scope{AgentName: "ag"}); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, static)
	waitClosed(t, otherTurn) // its agent's turns were closed in every session
	alive("session-qualified agent after static agent close", sessAgent)

	if err := r.CloseScope(ctx, Scope{SessionID: "s1", AgentName: "ag"}); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, sessAgent)
	alive("session after its agent closed", sess)

	if err := r.CloseScope(ctx, Scope{SessionID: "s1"}); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, sess)
	alive("another session", otherSess)

	cancel()
	waitClosed(t, otherSess)
}

func TestChangesEndAtClose(t *testing.T) {
	r := NewRegistry(nil)
	ch := r.Changes(context.Background(), Scope{SessionID: "s"})
	c := newObsCap("c")
	if err := r.Register(c, LevelSession, Scope{SessionID: "s"}); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, ch)
	if n := notifierSubs(&c.Notifier); n != 0 {
		t.Fatalf("%d observers left after Close", n)
	}
	c.Emit(ChangeEvent{Kind: ToolsChanged}) // must not panic or block
}

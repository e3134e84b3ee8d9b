package ext

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// closeLog records the order of Close calls.
type closeLog struct {
	mu    sync.Mutex
	order []string
}

func (l *closeLog) add(s string) {
	l.mu.Lock()
	l.order = append(l.order, s)
	l.mu.Unlock()
}

func (l *closeLog) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.order...)
}

func recordingCap(log *closeLog, name, label string) *testCap {
	c := newCap(name)
	c.onClose = func(context.Context) error { log.add(label); return nil }
	return c
}

// rank checks that labels appear grouped in the order given.
func checkRanks(t *testing.T, order []string, ranks map[string]int) {
	t.Helper()
	last := -1
	for _, label := range order {
		rk, ok := ranks[label]
		if !ok {
			t.Fatalf("unexpected close %q in %v", label, order)
		}
		if rk < last {
			t.Fatalf("close order %v: %q after a later level", order, label)
		}
		last = rk
	}
}

func TestCloseOrderAndOnClose(t *testing.T) {
	r := NewRegistry(nil)
	var log closeLog
	reg := func(label string, level ScopeLevel, slot Scope, n int) {
		for i := range n {
			if err := r.Register(recordingCap(&log, fmt.Sprint(label, i), label), level, slot); err != nil {
				t.Fatal(err)
			}
		}
	}
	reg("pool", LevelPool, Scope{}, 3)
	reg("session", LevelSession, Scope{SessionID: "s1"}, 2)
	reg("session", LevelSession, Scope{SessionID: "s2"}, 2)
	reg("agent", LevelAgent, Scope{AgentName: "ag"}, 2)
	reg("agent", LevelAgent, Scope{SessionID: "s1", AgentName: "ag"}, 2)
	reg("turn", LevelTurn, Scope{SessionID: "s1", AgentName: "ag", TurnID: "t"}, 3)
	r.OnClose(func(context.Context) error { log.add("onclose-first"); return nil })
	r.OnClose(nil)
	r.OnClose(func(context.Context) error { log.add("onclose-second"); return nil })

	if err := r.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	order := log.get()
	if len(order) != 16 {
		t.Fatalf("closed %d, want 16: %v", len(order), order)
	}
	checkRanks(t, order, map[string]int{"turn": 0, "agent": 1, "session": 2, "pool": 3, "onclose-second": 4, "onclose-first": 5})

	// Idempotent: nothing is closed twice.
	if err := r.Close(context.Background()); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if got := len(log.get()); got != 16 {
		t.Fatalf("second Close closed again: %d", got)
	}
	// OnClose after Close runs at once.
	ran := make(chan struct{})
	r.OnClose(func(context.Context) error { close(ran); return nil })
	select {
	case <-ran:
	default:
		t.Fatal("OnClose after Close did not run")
	}
}

func TestCloseAbandonsHungCapability(t *testing.T) {
	const timeout = 200 * time.Millisecond
	r, logs := loggedRegistry(t, RegistryOptions{CloseTimeout: timeout})
	release := make(chan struct{})
	defer close(release) // lets the abandoned Close return, for goleak
	hung := newCap("hung")
	hung.onClose = func(context.Context) error { <-release; return nil } // ignores ctx
	if err := r.Register(hung, LevelSession, Scope{SessionID: "s"}); err != nil {
		t.Fatal(err)
	}
	var others []*testCap
	for i, level := range []ScopeLevel{LevelPool, LevelSession, LevelAgent, LevelTurn} {
		c := newCap(fmt.Sprint("ok", i))
		others = append(others, c)
		if err := r.Register(c, level, Scope{SessionID: "s", AgentName: "ag", TurnID: "t"}); err != nil {
			t.Fatal(err)
		}
	}
	failing := newCap("failing")
	failing.onClose = func(context.Context) error { return errors.New("disk on fire") }
	panicky := newCap("panicky")
	panicky.onClose = func(context.Context) error { panic("boom") }
	for _, c := range []*testCap{failing, panicky} {
		if err := r.Register(c, LevelPool, Scope{}); err != nil {
			t.Fatal(err)
		}
	}

	start := time.Now()
	err := r.Close(context.Background())
	elapsed := time.Since(start)
	if elapsed > 10*timeout {
		t.Fatalf("Close took %v with a %v timeout", elapsed, timeout)
	}
	for _, c := range others {
		if c.closes.Load() != 1 {
			t.Fatalf("%s not closed because another capability hung", c.name)
		}
	}
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), `"hung"`) {
		t.Fatalf("Close error does not report the hung capability: %v", err)
	}
	for _, want := range []string{"disk on fire", "panic: boom", "abandoned"} {
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("Close error lacks %q: %v", want, err)
		}
	}
	if !strings.Contains(logs.String(), "close abandoned") {
		t.Fatalf("abandoned close not logged: %s", logs)
	}
}

func TestCloseConcurrentCallers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := NewRegistry(nil)
		c := newCap("c")
		release := make(chan struct{})
		var finished atomic.Bool
		c.onClose = func(context.Context) error { <-release; finished.Store(true); return nil }
		if err := r.Register(c, LevelPool, Scope{}); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var returned atomic.Int32
		for range 4 {
			wg.Go(func() {
				if err := r.Close(context.Background()); err != nil {
					t.Error(err)
				}
				returned.Add(1)
				// Every caller returns only once the capability is closed.
				if c.closes.Load() != 1 || !finished.Load() {
					t.Error("Close returned before the first Close finished")
				}
			})
		}
		synctest.Wait() // all four are in Close: one in the capability's Close, three waiting for it
		if n := returned.Load(); n != 0 {
			t.Fatalf("%d Close calls returned while the capability's Close was running", n)
		}
		close(release)
		wg.Wait()
	})
}

func TestCloseScopeOrderAndValidation(t *testing.T) {
	r := newTestRegistry(t)
	var log closeLog
	reg := func(label string, level ScopeLevel, slot Scope) *testCap {
		c := recordingCap(&log, label, label)
		if err := r.Register(c, level, slot); err != nil {
			t.Fatal(err)
		}
		return c
	}
	pool := reg("pool", LevelPool, Scope{})
	reg("session", LevelSession, Scope{SessionID: "s"})
	reg("agent", LevelAgent, Scope{SessionID: "s", AgentName: "ag"})
	static := reg("static", LevelAgent, Scope{AgentName: "ag"})
	reg("turn", LevelTurn, Scope{SessionID: "s", AgentName: "ag", TurnID: "t"})
	other := reg("other", LevelSession, Scope{SessionID: "s2"})

	ctx := context.Background()
	for _, bad := range []Scope{{}, {PoolID: "default"}, {TurnID: "t"}, {SessionID: "s", TurnID: "t"}} {
		if err := r.CloseScope(ctx, bad); err == nil {
			t.Fatalf("CloseScope(%s) accepted", bad)
		}
	}
	if err := r.CloseScope(ctx, Scope{PoolID: "elsewhere", SessionID: "s"}); err != nil {
		t.Fatal(err)
	}
	if len(log.get()) != 0 {
		t.Fatal("closing another pool's scope closed something here")
	}
	if err := r.CloseScope(ctx, Scope{SessionID: "s"}); err != nil {
		t.Fatal(err)
	}
	checkRanks(t, log.get(), map[string]int{"turn": 0, "agent": 1, "session": 2})
	if len(log.get()) != 3 {
		t.Fatalf("closed %v", log.get())
	}
	if pool.closes.Load()+static.closes.Load()+other.closes.Load() != 0 {
		t.Fatal("CloseScope closed a capability outside the session")
	}
	got := names(r.Visible(Scope{SessionID: "s", AgentName: "ag", TurnID: "t"}))
	if strings.Join(got, ",") != "pool,static" {
		t.Fatalf("after CloseScope the session sees %v", got)
	}
	// Closing an empty scope again is fine.
	if err := r.CloseScope(ctx, Scope{SessionID: "s"}); err != nil {
		t.Fatal(err)
	}
}

// A capability registered in several slots (allowed: "the same capability value may be
// registered in several slots") is closed only when its last registration goes, and once.
func TestCloseScopeKeepsCapabilityRegisteredElsewhere(t *testing.T) {
	// In a bubble, a Close that takes a while lets every other goroutine that would close the
	// capability too reach its Close first.
	synctest.Test(t, testCloseScopeKeepsCapabilityRegisteredElsewhere)
}

func testCloseScopeKeepsCapabilityRegisteredElsewhere(t *testing.T) {
	r := newTestRegistry(t)
	shared := newCap("shared")
	var inFlight, overlap atomic.Int32
	shared.onClose = func(context.Context) error {
		if inFlight.Add(1) > 1 {
			overlap.Store(1)
		}
		sleepInBubble(time.Millisecond)
		inFlight.Add(-1)
		return nil
	}
	for _, reg := range []struct {
		level ScopeLevel
		slot  Scope
	}{
		{LevelPool, Scope{}},
		{LevelSession, Scope{SessionID: "s1"}},
		{LevelSession, Scope{SessionID: "s2"}},
		{LevelAgent, Scope{SessionID: "s2", AgentName: "ag"}},
	} {
		if err := r.Register(shared, reg.level, reg.slot); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	if err := r.CloseScope(ctx, Scope{SessionID: "s1"}); err != nil {
		t.Fatal(err)
	}
	if n := shared.closes.Load(); n != 0 {
		t.Fatalf("CloseScope(s1) closed a capability still registered at pool and in s2 (%d closes)", n)
	}
	if got := names(r.Visible(Scope{})); len(got) != 1 || got[0] != "shared" {
		t.Fatalf("pool sees %v after CloseScope(s1)", got)
	}
	// Close closes it once, although it sits in three slots at once (two at the same level).
	if err := r.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if n := shared.closes.Load(); n != 1 {
		t.Fatalf("Close closed a capability registered in three slots %d times, want 1", n)
	}
	if overlap.Load() != 0 {
		t.Fatal("Close called the same capability's Close concurrently")
	}
}

// CloseScope does not close a capability that is also a composition member of a capability
// registered elsewhere: its parent owns it.
func TestCloseScopeKeepsChildOfLiveParent(t *testing.T) {
	r := newTestRegistry(t)
	child := newCap("child")
	parent := newCompCap("parent", child)
	if err := r.Register(parent, LevelPool, Scope{}); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(child, LevelSession, Scope{SessionID: "s"}); err != nil {
		t.Fatal(err)
	}
	if err := r.CloseScope(context.Background(), Scope{SessionID: "s"}); err != nil {
		t.Fatal(err)
	}
	if n := child.closes.Load(); n != 0 {
		t.Fatalf("CloseScope closed a child its pool-level parent still holds (%d closes)", n)
	}
}

package ext

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var seedFlag = flag.Uint64("ext.seed", 0, "seed of the randomized ext tests (0: $EXT_SEED or the fixed default)")

// testSeed returns the seed for randomized tests and logs it so a failure can be replayed with
// -ext.seed.
func testSeed(t testing.TB) uint64 {
	seed := *seedFlag
	if seed == 0 {
		if v, err := strconv.ParseUint(os.Getenv("EXT_SEED"), 10, 64); err == nil {
			seed = v
		}
	}
	if seed == 0 {
		seed = 20260711
	}
	t.Logf("seed %d (replay with -ext.seed=%d)", seed, seed)
	return seed
}

// refVisible is the reference visibility rule, written independently of the registry.
func refVisible(level ScopeLevel, slot, q Scope) bool {
	if q.PoolID != "" && q.PoolID != DefaultPoolID {
		return false
	}
	switch level {
	case LevelPool:
		return true
	case LevelSession:
		return q.SessionID != "" && q.SessionID == slot.SessionID
	case LevelAgent:
		if slot.SessionID == "" {
			return q.AgentName != "" && q.AgentName == slot.AgentName
		}
		return q.AgentName != "" && q.AgentName == slot.AgentName && q.SessionID == slot.SessionID
	case LevelTurn:
		return q.TurnID != "" && q == Scope{PoolID: q.PoolID, SessionID: slot.SessionID, AgentName: slot.AgentName, TurnID: slot.TurnID}
	}
	return false
}

// category is the position of a registration in Visible order.
func category(c *testCap) int {
	switch c.level {
	case LevelPool:
		return 0
	case LevelSession:
		return 1
	case LevelAgent:
		if c.slot.SessionID == "" {
			return 2
		}
		return 3
	}
	return 4
}

// refModel is the obviously-correct model: every live registration in registration order.
type refModel struct{ live []*testCap }

func (m *refModel) visible(q Scope) []Capability {
	var out []Capability
	for cat := 0; cat < 5; cat++ {
		for _, c := range m.live {
			if category(c) == cat && refVisible(c.level, c.slot, q) {
				out = append(out, c.outer)
			}
		}
	}
	return out
}

func (m *refModel) find(level ScopeLevel, slot Scope, name string) int {
	for i, c := range m.live {
		if c.level == level && c.slot == slot && c.name == name {
			return i
		}
	}
	return -1
}

// closeScope removes what CloseScope(q) closes and returns it.
func (m *refModel) closeScope(q Scope) []*testCap {
	hit := func(c *testCap) bool {
		switch {
		case q.TurnID != "":
			return c.level == LevelTurn && c.slot == q
		case q.AgentName != "" && q.SessionID != "":
			return (c.level == LevelAgent || c.level == LevelTurn) && c.slot.SessionID == q.SessionID && c.slot.AgentName == q.AgentName
		case q.AgentName != "":
			return (c.level == LevelAgent && c.slot.SessionID == "" || c.level == LevelTurn) && c.slot.AgentName == q.AgentName
		default:
			return c.level != LevelPool && c.slot.SessionID == q.SessionID
		}
	}
	var gone []*testCap
	kept := m.live[:0]
	for _, c := range m.live {
		if hit(c) {
			gone = append(gone, c)
		} else {
			kept = append(kept, c)
		}
	}
	m.live = kept
	return gone
}

func idsOf(caps []Capability) []string {
	out := make([]string, len(caps))
	for i, c := range caps {
		tc := capOf(c)
		out[i] = fmt.Sprintf("%s@%s%s", tc.name, tc.level, tc.slot)
	}
	return out
}

func capOf(c Capability) *testCap {
	switch v := c.(type) {
	case *testCap:
		return v
	case *skillCap:
		return &v.testCap
	}
	panic(fmt.Sprintf("unexpected capability %T", c))
}

// TestScopeIsolationProperty drives random Register, Unregister and CloseScope operations over
// 120 sessions, 60 agents and 250 turn ids, and checks every query against refModel, while
// concurrent readers check that nothing returned is outside the reader's scope.
func TestScopeIsolationProperty(t *testing.T) {
	const (
		sessions = 120
		agents   = 60
		turns    = 250
		ops      = 7000
	)
	rng := rand.New(rand.NewPCG(testSeed(t), 1))
	r := NewRegistry(nil)
	defer r.Close(context.Background())

	randScope := func(rng *rand.Rand) Scope {
		q := Scope{}
		if rng.IntN(6) > 0 {
			q.SessionID = "s" + strconv.Itoa(rng.IntN(sessions+5)) // a few never used
		}
		if rng.IntN(4) > 0 {
			q.AgentName = "a" + strconv.Itoa(rng.IntN(agents))
		}
		if rng.IntN(3) > 0 {
			q.TurnID = "t" + strconv.Itoa(rng.IntN(turns))
		}
		if rng.IntN(40) == 0 {
			q.PoolID = "other"
		}
		return q
	}

	// Concurrent readers: whatever they see must be visible to them.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var readerErr sync.Once
	var readerMsg string
	var reads atomic.Int64
	for i := range 2 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(i), 99))
			for {
				select {
				case <-stop:
					return
				default:
				}
				runtime.Gosched() // share the CPU with the writer
				q := randScope(rng)
				var got []Capability
				if i%2 == 0 {
					got = r.Visible(q)
				} else {
					for _, s := range r.SkillResources(q) {
						got = append(got, s.(Capability))
					}
				}
				reads.Add(1)
				for _, c := range got {
					tc := capOf(c)
					if !refVisible(tc.level, tc.slot, q) {
						readerErr.Do(func() { readerMsg = fmt.Sprintf("%s@%s%s visible to %s", tc.name, tc.level, tc.slot, q) })
					}
				}
			}
		})
	}

	var m refModel
	var closed []*testCap
	check := func(step int) {
		t.Helper()
		queries := []Scope{{}}
		for range 40 {
			queries = append(queries, randScope(rng))
		}
		// Scopes of live registrations, so deep slots are queried too.
		for range 20 {
			if len(m.live) > 0 {
				c := m.live[rng.IntN(len(m.live))]
				queries = append(queries, Scope{SessionID: c.slot.SessionID, AgentName: c.slot.AgentName, TurnID: c.slot.TurnID})
			}
		}
		for _, q := range queries {
			want, got := m.visible(q), r.Visible(q)
			if !cmp.Equal(idsOf(want), idsOf(got)) {
				t.Fatalf("step %d: Visible(%s):\n%s", step, q, cmp.Diff(idsOf(want), idsOf(got)))
			}
			var wantSkills []string
			for _, c := range want {
				if _, ok := c.(SkillResource); ok {
					wantSkills = append(wantSkills, idsOf([]Capability{c})[0])
				}
			}
			var gotSkills []string
			for _, s := range r.SkillResources(q) {
				gotSkills = append(gotSkills, idsOf([]Capability{s.(Capability)})[0])
			}
			if !cmp.Equal(wantSkills, gotSkills) {
				t.Fatalf("step %d: SkillResources(%s):\n%s", step, q, cmp.Diff(wantSkills, gotSkills))
			}
		}
	}

	registered, unregistered, scopesClosed := 0, 0, 0
	for step := range ops {
		switch p := rng.IntN(100); {
		case p < 70:
			var c *testCap
			var capv Capability
			if rng.IntN(4) == 0 {
				sc := newSkillCap(t, "", "")
				c, capv = &sc.testCap, sc
			} else {
				c = &testCap{}
				capv = c
			}
			c.outer = capv
			c.name = "c" + strconv.Itoa(rng.IntN(8))
			c.level = ScopeLevel(rng.IntN(4))
			s := "s" + strconv.Itoa(rng.IntN(sessions))
			a := "a" + strconv.Itoa(rng.IntN(agents))
			tu := "t" + strconv.Itoa(rng.IntN(turns))
			switch c.level {
			case LevelSession:
				c.slot = Scope{SessionID: s}
			case LevelAgent:
				if rng.IntN(2) == 0 {
					c.slot = Scope{AgentName: a}
				} else {
					c.slot = Scope{SessionID: s, AgentName: a}
				}
			case LevelTurn:
				c.slot = Scope{SessionID: s, AgentName: a, TurnID: tu}
			}
			if c.level == LevelPool && rng.IntN(10) > 0 {
				continue // keep the pool small, as in real use
			}
			err := r.Register(capv, c.level, c.slot)
			if m.find(c.level, c.slot, c.name) >= 0 {
				if !errors.Is(err, ErrDuplicate) {
					t.Fatalf("step %d: duplicate %s@%s%s: got %v", step, c.name, c.level, c.slot, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("step %d: Register: %v", step, err)
			}
			m.live = append(m.live, c)
			registered++
		case p < 88:
			if len(m.live) == 0 || rng.IntN(10) == 0 {
				err := r.Unregister(LevelSession, Scope{SessionID: "nobody"}, "c0")
				if !errors.Is(err, ErrNotFound) {
					t.Fatalf("step %d: Unregister of nothing: %v", step, err)
				}
				continue
			}
			i := rng.IntN(len(m.live))
			c := m.live[i]
			if err := r.Unregister(c.level, c.slot, c.name); err != nil {
				t.Fatalf("step %d: Unregister %s@%s%s: %v", step, c.name, c.level, c.slot, err)
			}
			m.live = append(m.live[:i], m.live[i+1:]...)
			unregistered++
		default:
			var q Scope
			s := "s" + strconv.Itoa(rng.IntN(sessions))
			a := "a" + strconv.Itoa(rng.IntN(agents))
			switch rng.IntN(4) {
			case 0:
				q = Scope{SessionID: s}
			case 1:
				q = Scope{AgentName: a}
			case 2:
				q = Scope{SessionID: s, AgentName: a}
			case 3:
				if len(m.live) > 0 && rng.IntN(2) == 0 {
					if c := m.live[rng.IntN(len(m.live))]; c.level == LevelTurn {
						q = c.slot
						break
					}
				}
				q = Scope{SessionID: s, AgentName: a, TurnID: "t" + strconv.Itoa(rng.IntN(turns))}
			}
			if err := r.CloseScope(context.Background(), q); err != nil {
				t.Fatalf("step %d: CloseScope(%s): %v", step, q, err)
			}
			gone := m.closeScope(q)
			for _, c := range gone {
				if n := c.closes.Load(); n != 1 {
					t.Fatalf("step %d: CloseScope(%s) closed %s@%s%s %d times", step, q, c.name, c.level, c.slot, n)
				}
			}
			closed = append(closed, gone...)
			scopesClosed++
		}
		if step%50 == 49 {
			check(step)
		}
	}
	check(ops)
	close(stop)
	wg.Wait()
	if readerMsg != "" {
		t.Fatalf("concurrent reader: %s", readerMsg)
	}
	for _, c := range m.live {
		if c.closes.Load() != 0 {
			t.Fatalf("live %s@%s%s was closed", c.name, c.level, c.slot)
		}
	}
	t.Logf("%d registered, %d unregistered, %d scopes closed (%d capabilities), %d live, %d concurrent reads",
		registered, unregistered, scopesClosed, len(closed), len(m.live), reads.Load())
	if reads.Load() == 0 {
		t.Fatal("the concurrent readers never ran")
	}
	if registered < 2000 {
		t.Fatalf("only %d registrations: the property was not exercised", registered)
	}
}

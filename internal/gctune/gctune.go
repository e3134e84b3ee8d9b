// Package gctune sizes the garbage collector's headroom for a long-running server. Go's
// default (GOGC=100) lets the heap grow to twice what is live: for a gateway holding thousands
// of idle sessions that is as much memory again as the sessions hold. A fixed lower GOGC would
// make every collection of a small heap more frequent, and so each call dearer. So the percent
// stays at 100 while the live heap is small and is lowered as it grows, keeping the headroom
// near a cap, never below a floor. GOGC and GOMEMLIMIT in the environment keep their meaning:
// with GOGC set, nothing is tuned.
package gctune

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// The headroom and floor `agentpool serve` tunes with: a live heap up to 4 MiB (serve with
// one server and a few dozen sessions holds about 3 MiB; a config of dozens of servers and
// large skill folders holds more, and is collected more often than Go's default) keeps GOGC=100, past it the headroom stays 4 MiB
// down to GOGC=25 (a live heap of 16 MiB, about six hundred idle sessions), which then holds.
// What the headroom grows by between a few sessions and a thousand is counted, in the RSS,
// against each of those sessions: the smaller the cap, the less.
const (
	DefaultHeadroom = 4 << 20
	DefaultFloor    = 25
)

// Percent is the GC percent for a live heap of live bytes: 100 while that leaves at most
// headroom bytes to grow, else the percent that leaves headroom, but at least floor.
func Percent(live, headroom uint64, floor int) int {
	if live == 0 || live <= headroom {
		return 100
	}
	return max(int(headroom*100/live), floor)
}

// Start tunes the GC percent after every collection, from the live heap then
// (Percent(live, headroom, floor)), until stop is called, which restores the percent found.
// With $GOGC set it does nothing. stop is idempotent.
func Start(headroom uint64, floor int) (stop func()) {
	if _, set := os.LookupEnv("GOGC"); set {
		return func() {}
	}
	t := &tuner{headroom: headroom, floor: floor, sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	t.prev = debug.SetGCPercent(100)
	debug.SetGCPercent(t.prev)
	t.arm()
	return sync.OnceFunc(func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		t.stopped = true
		debug.SetGCPercent(t.prev)
	})
}

type tuner struct {
	headroom uint64
	floor    int
	prev     int

	mu      sync.Mutex
	stopped bool
	sample  []metrics.Sample
}

// sentinel is an object whose only reference is dropped at once: its cleanup runs after the
// next collection, and arms the next one.
type sentinel struct{ _ *int }

func (t *tuner) arm() {
	runtime.AddCleanup(&sentinel{}, (*tuner).collected, t)
}

// collected runs after a collection: it sets the percent and waits for the next one.
func (t *tuner) collected() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return
	}
	metrics.Read(t.sample)
	if t.sample[0].Value.Kind() == metrics.KindUint64 {
		debug.SetGCPercent(Percent(t.sample[0].Value.Uint64(), t.headroom, t.floor))
	}
	t.arm()
}

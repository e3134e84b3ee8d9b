// Package gctune sizes the garbage collector's headroom for a long-running server. Go's
// default (GOGC=100) lets the heap grow to twice what is live: for a gateway holding thousands
// of idle sessions that is as much memory again as the sessions hold. A fixed lower GOGC would
// make every collection of a small heap more frequent, and so each call dearer. So the percent
// stays at 100 while the live heap is small and is lowered as it grows, keeping the headroom
// near a cap, never below a floor. GOGC and GOMEMLIMIT in the environment keep their meaning:
// with GOGC set, nothing is tuned.
//
// The processors follow the live heap too (Procs): a server that mostly waits, moving a call
// between two connections with a few dozen microseconds of work, runs on one processor while
// its heap is small, since on more the runtime spends about as much again waking and parking
// threads for each event; past the live heap at which the percent reaches its floor (16 MiB
// with serve's defaults, about six hundred idle sessions: collections come often then, and
// mark much) it gets every processor, which the
// collector's marking needs, and back to one below half that. GOMAXPROCS in the environment
// keeps its meaning: with it set, the processors are not tuned.
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

// Procs is the GOMAXPROCS for a live heap of live bytes, the processors found being all and
// the processors set now being cur: one up to procsHeap, all past it, and once all, all down
// to half of procsHeap.
func Procs(live, procsHeap uint64, all, cur int) int {
	switch {
	case live > procsHeap:
		return all
	case live < procsHeap/2 || cur == 1:
		return 1
	}
	return cur
}

// Start tunes, after every collection and from the live heap then, the GC percent
// (Percent(live, headroom, floor); not with $GOGC set) and the processors (Procs, past the
// heap at which the percent reaches floor; not with $GOMAXPROCS set), starting on one, until
// stop is called, which restores both as found. stop is idempotent.
func Start(headroom uint64, floor int) (stop func()) {
	_, gogc := os.LookupEnv("GOGC")
	_, procs := os.LookupEnv("GOMAXPROCS")
	if gogc && procs {
		return func() {}
	}
	t := &tuner{headroom: headroom, floor: floor, gogc: !gogc, sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	t.prev = debug.SetGCPercent(100)
	debug.SetGCPercent(t.prev)
	if !procs {
		t.all = procsTuned.start()
		t.procsHeap = headroom * 100 / uint64(max(floor, 1))
	}
	t.arm()
	return sync.OnceFunc(func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		t.stopped = true
		debug.SetGCPercent(t.prev)
		if t.all > 0 {
			procsTuned.stop()
		}
	})
}

// procsTuned counts the Starts tuning the processors, which are process-wide: the first
// finds them and sets one, the last puts back what the first found.
var procsTuned procsCount

type procsCount struct {
	mu    sync.Mutex
	n     int
	found int
}

// start counts a Start and returns the processors found by the first.
func (p *procsCount) start() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.n == 0 {
		p.found = runtime.GOMAXPROCS(1)
	}
	p.n++
	return p.found
}

// stop counts a Start's stop; the last one restores the processors found.
func (p *procsCount) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.n--; p.n == 0 {
		runtime.GOMAXPROCS(p.found)
	}
}

// set sets the processors to n while a Start is tuning them.
func (p *procsCount) set(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.n > 0 {
		runtime.GOMAXPROCS(n)
	}
}

type tuner struct {
	headroom  uint64
	floor     int
	prev      int
	gogc      bool   // the percent is tuned
	all       int    // the processors found; 0: not tuned
	procs     int    // the processors set (1 at start)
	procsHeap uint64 // Procs's

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
		live := t.sample[0].Value.Uint64()
		if t.gogc {
			debug.SetGCPercent(Percent(live, t.headroom, t.floor))
		}
		if t.all > 0 {
			if p := Procs(live, t.procsHeap, t.all, max(t.procs, 1)); p != max(t.procs, 1) {
				procsTuned.set(p)
				t.procs = p
			}
		}
	}
	t.arm()
}

// Package proctune sets how many processors a server's goroutines run on (GOMAXPROCS) from
// the CPU time it uses: one while it uses less than most of one processor, every one Go would
// give it (its default GOMAXPROCS) while it needs more.
//
// A gateway that passes a message from one connection to another readies a goroutine per
// event. With a second processor idle, the runtime wakes that processor's thread to run it
// (a futex), the thread spins looking for work and parks again; on two processors that costs
// about as much CPU per passed-through call as the gateway's own work on it. On one processor
// there is none of it. But one processor also caps what the process can do: the collector's
// marking of a large heap, a burst of new sessions, more calls than one processor serves. So
// the tuner reads the process's CPU time every Interval; on one processor, an interval that
// used at least Up of it moves the process to every processor; on them, Calm intervals in a
// row that each used less than Down of one processor move it back. A share is of the time
// between two readings, which is more than Interval when a reading comes late. An idle
// process (under 1 % of one processor) on one processor is read less and less often, up to
// once per IdleInterval, so that it is not woken ten times a second for nothing; any reading
// above that brings back Interval, so a burst moves the process within IdleInterval and one
// Interval.
//
// Under a CPU limit (a cgroup's quota) of one processor or less, Go's default is still two
// processors, but they cannot give the process more CPU time than one, only spend more of it
// on wake-ups: the process stays on one. The limit is read as Go reads it, before each move
// to more processors (it may change while the process runs).
//
// GOMAXPROCS in the environment keeps its meaning: with it set, nothing is tuned. So does a
// default of one processor. Where the process's CPU time cannot be read (not a Unix system),
// nothing is tuned either.
package proctune

import (
	"os"
	"runtime"
	"sync"
	"time"
)

// The tuner's defaults: the CPU time is read every 100 ms; an interval at 75 % of one processor
// or more moves to every processor, ten in a row (one second) under 40 % move back. The gap
// between the two leaves room for what one processor saves: a load that used 75 % of two
// uses less of one, and does not move back and forth.
const (
	DefaultInterval = 100 * time.Millisecond
	DefaultUp       = 0.75
	DefaultDown     = 0.40
	DefaultCalm     = 10

	DefaultIdleInterval = time.Second
)

// idleShare is the share of one processor under which a process on one processor is idle:
// its next reading comes twice as late, up to IdleInterval.
const idleShare = 0.01

// Config is a tuner's thresholds; its zero fields take the defaults.
type Config struct {
	Interval time.Duration
	Up, Down float64 // shares of one processor's time over an interval
	Calm     int     // intervals in a row under Down before moving back to one processor
	// IdleInterval is the longest wait between two readings of an idle process.
	IdleInterval time.Duration
}

func (c Config) withDefaults() Config {
	if c.Interval <= 0 {
		c.Interval = DefaultInterval
	}
	if c.Up <= 0 {
		c.Up = DefaultUp
	}
	if c.Down <= 0 {
		c.Down = DefaultDown
	}
	if c.Calm <= 0 {
		c.Calm = DefaultCalm
	}
	if c.IdleInterval < c.Interval {
		c.IdleInterval = max(DefaultIdleInterval, c.Interval)
	}
	return c
}

// Policy decides the processors from the CPU time used. Its zero value is not usable: use
// NewPolicy.
type Policy struct {
	cfg   Config
	max   int
	procs int // the processors now
	calm  int // intervals in a row under Down, on max processors

	// limit is the process's CPU limit in processors (false: none), read before a move to
	// more processors: under a limit of one or less, they cannot give it more CPU time.
	limit func() (float64, bool)
}

// NewPolicy returns the policy of a process whose default is max processors, starting on one.
func NewPolicy(cfg Config, max int) *Policy {
	return &Policy{cfg: cfg.withDefaults(), max: max, procs: 1, limit: noLimit}
}

// Procs is the processors the policy has the process run on now: 1, or max (Go's default).
func (p *Policy) Procs() int { return p.procs }

// Next takes the CPU time the process used in the time over since the last reading (Interval,
// more when a reading comes late, up to IdleInterval for an idle process; Interval if over is
// not positive) and returns the
// processors to run on from now. A move to max needs a CPU limit above one processor, or none.
func (p *Policy) Next(used, over time.Duration) int {
	if over <= 0 {
		over = p.cfg.Interval
	}
	share := float64(used) / float64(over)
	switch {
	case p.procs == 1 && share >= p.cfg.Up:
		if l, ok := p.limit(); !ok || l > 1 {
			p.procs, p.calm = p.max, 0
		}
	case p.procs > 1 && share < p.cfg.Down:
		p.calm++
		if p.calm >= p.cfg.Calm {
			p.procs, p.calm = 1, 0
		}
	case p.procs > 1:
		p.calm = 0
	}
	return p.procs
}

// Start tunes the process's processors with cfg until stop is called, which gives the
// process back Go's default. A move to more processors is a move to Go's default as the
// runtime keeps it, not to the number found at Start, so that it follows a CPU limit or
// affinity that changes. Start does nothing (stop does nothing) with $GOMAXPROCS set, with a
// default of one processor, where the CPU time cannot be read, or while another Start's
// tuning runs. stop is idempotent; it returns once the tuning has ended.
func Start(cfg Config) (stop func()) {
	if _, set := os.LookupEnv("GOMAXPROCS"); set {
		return func() {}
	}
	if _, ok := cpuTime(); !ok {
		return func() {}
	}
	proc := process{procs: runtime.GOMAXPROCS(0), cpu: cpuTime, limit: cgroupLimit(), set: setProcs}
	return start(cfg, proc)
}

// nextWait is the wait before the reading after one that found used CPU time over the time
// over, on procs processors, the last wait having been wait: twice that (up to IdleInterval)
// for an idle process on one processor, else Interval.
func nextWait(cfg Config, procs int, wait, used, over time.Duration) time.Duration {
	if procs == 1 && over > 0 && float64(used) < idleShare*float64(over) {
		return min(2*wait, cfg.IdleInterval)
	}
	return cfg.Interval
}

// process is what a tuning reads and sets: this process, or a test's.
type process struct {
	procs int                          // Go's default processors at the start
	cpu   func() (time.Duration, bool) // the CPU time used
	limit func() (float64, bool)       // the CPU limit, in processors; false for none
	set   func(int)                    // 1, or 0 for Go's default
}

func noLimit() (float64, bool) { return 0, false }

// setProcs sets the processors; 0 gives back Go's default, and with it the runtime's own
// updates of it when the CPU limit or affinity changes (runtime.GOMAXPROCS(n) stops those).
func setProcs(n int) {
	if n == 0 {
		runtime.SetDefaultGOMAXPROCS()
		return
	}
	runtime.GOMAXPROCS(n)
}

var running sync.Mutex // held while a tuning runs: one per process

// start is Start on the process given.
func start(cfg Config, proc process) (stop func()) {
	max, cpu, set := proc.procs, proc.cpu, proc.set
	if max <= 1 || !running.TryLock() {
		return func() {}
	}
	cfg = cfg.withDefaults()
	p := NewPolicy(cfg, max)
	p.limit = proc.limit
	set(p.Procs())
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		wait := cfg.Interval
		t := time.NewTimer(wait)
		defer t.Stop()
		last, _ := cpu()
		lastAt := time.Now()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			now, ok := cpu()
			if !ok {
				t.Reset(wait)
				continue
			}
			at := time.Now()
			wait = nextWait(cfg, p.Procs(), wait, now-last, at.Sub(lastAt))
			t.Reset(wait)
			before := p.Procs()
			switch n := p.Next(now-last, at.Sub(lastAt)); {
			case n == before:
			case n == 1:
				set(1)
			default:
				set(0) // Go's default, which the runtime keeps following the CPU limit
			}
			last, lastAt = now, at
		}
	}()
	return sync.OnceFunc(func() {
		close(done)
		<-ended
		set(0)
		running.Unlock()
	})
}

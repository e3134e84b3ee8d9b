package gateway

import (
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// TestIdleTimer: on a synctest bubble's clock, a session's idle timer fires IdleTimeout after
// the last request in flight ended (SessionGrace once its GET stream closed), never while one
// is in flight, and never after stop.
func TestIdleTimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const d = 5 * time.Minute
		var fired atomic.Int32
		var i idleTimer
		i.arm(d, 0, func() { fired.Add(1) })
		wait := func(after time.Duration, want int32, what string) {
			t.Helper()
			time.Sleep(after) // in a bubble: no real wait
			synctest.Wait()
			if got := fired.Load(); got != want {
				t.Fatalf("%s: fired %d times, want %d", what, got, want)
			}
		}
		wait(d-time.Second, 0, "before the timeout")
		i.begin() // a request: the timer stops
		wait(2*d, 0, "with a request in flight")
		i.begin()
		i.end() // one request still in flight
		wait(2*d, 0, "with one of two requests in flight")
		i.end() // the last: the wait starts again, in full
		wait(d-time.Second, 0, "before the timeout after the last request")
		wait(time.Second, 1, "at the timeout after the last request")

		var s idleTimer
		s.arm(d, 0, func() { fired.Add(1) })
		s.stop()
		s.begin()
		s.end()
		wait(2*d, 1, "after stop")
		s.arm(d, 0, func() { fired.Add(1) }) // stopped for good
		wait(2*d, 1, "armed after stop")

		// A client whose GET stream closed is gone once grace passes without a request; while
		// the stream is open, or a request is in flight, the idle timeout holds.
		const grace = time.Minute
		var g idleTimer
		g.arm(d, grace, func() { fired.Add(1) })
		g.streamBegin()
		wait(d-time.Second, 1, "with its stream open")
		g.begin()
		g.streamEnd(true)
		wait(2*d, 1, "with its stream closed and a request in flight")
		g.end()
		wait(grace-time.Second, 1, "before the grace after its last request")
		wait(time.Second, 2, "at the grace after its stream closed")

		// A GET answered with no stream (refused) does not shorten the wait.
		var r idleTimer
		r.arm(d, grace, func() { fired.Add(1) })
		r.streamBegin()
		r.streamEnd(false)
		wait(d-time.Second, 2, "after a GET refused")
		wait(time.Second, 3, "at the idle timeout after a GET refused")

		// Requests that come and go more often than the timeout keep the session for as long
		// as they come; it ends the timeout after the last one, to the moment.
		var k idleTimer
		k.arm(d, 0, func() { fired.Add(1) })
		for range 50 {
			time.Sleep(d / 3)
			k.begin()
			time.Sleep(time.Second)
			k.end()
		}
		wait(d-time.Nanosecond, 3, "before the timeout after a run of requests")
		wait(time.Nanosecond, 4, "at the timeout after a run of requests")
	})
}

// TestIdleTimerWaitChanges: the lazy timer follows a wait that changes while it is set: a
// GET stream that closes shortens it to SessionGrace from then, one that opens again
// lengthens it to IdleTimeout from then, and with no IdleTimeout an open stream holds the
// session for good.
func TestIdleTimerWaitChanges(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const d, grace = 5 * time.Minute, time.Minute
		var fired atomic.Int32
		wait := func(after time.Duration, want int32, what string) {
			t.Helper()
			time.Sleep(after)
			synctest.Wait()
			if got := fired.Load(); got != want {
				t.Fatalf("%s: fired %d times, want %d", what, got, want)
			}
		}

		var s idleTimer // set for d, then shortened to grace
		s.arm(d, grace, func() { fired.Add(1) })
		s.streamBegin()
		wait(time.Second, 0, "with its stream open")
		s.streamEnd(true)
		wait(grace-time.Nanosecond, 0, "before the grace after its stream closed")
		wait(time.Nanosecond, 1, "at the grace after its stream closed")

		var l idleTimer // set for grace, then lengthened to d
		l.arm(d, grace, func() { fired.Add(1) })
		l.streamBegin()
		l.streamEnd(true)
		wait(grace/2, 1, "within the grace")
		l.streamBegin()
		wait(d-time.Nanosecond, 1, "before the timeout after its stream opened again")
		wait(time.Nanosecond, 2, "at the timeout after its stream opened again")

		var f idleTimer // no timeout: only the grace
		f.arm(0, grace, func() { fired.Add(1) })
		f.streamBegin()
		f.streamEnd(true)
		wait(grace/2, 2, "within the grace")
		f.streamBegin()
		wait(10*d, 2, "with its stream open again and no idle timeout")
		f.streamEnd(true)
		wait(grace, 3, "at the grace after its stream closed again")
	})
}

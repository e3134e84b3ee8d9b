package gateway

import (
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// TestIdleTimer: on a synctest bubble's clock, a session's idle timer fires IdleTimeout after
// the last request in flight ended, never while one is in flight, and never after stop.
func TestIdleTimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const d = 5 * time.Minute
		var fired atomic.Int32
		var i idleTimer
		i.arm(d, func() { fired.Add(1) })
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
		s.arm(d, func() { fired.Add(1) })
		s.stop()
		s.begin()
		s.end()
		wait(2*d, 1, "after stop")
		s.arm(d, func() { fired.Add(1) }) // stopped for good
		wait(2*d, 1, "armed after stop")
	})
}

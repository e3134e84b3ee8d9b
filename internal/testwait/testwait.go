// Package testwait waits, in tests, for things that happen in other processes or on real
// clocks: a condition polled until it holds, a process until it is gone. Timer code inside the
// test process is tested with testing/synctest instead; testwait is for real subprocesses,
// real files and real sockets, where synctest cannot reach.
//
// A wait checks its condition at once and then on a short ticker, so it returns within a tick
// of the condition holding; it fails the test, naming what it waited for, when the time is
// up. A wait may run in a cleanup function.
package testwait

import (
	"errors"
	"fmt"
	"syscall"
	"testing"
	"time"
)

// Timeout is how long For waits: long, since it bounds a wait for something that should
// happen, on a machine that may be loaded, not a figure under test.
const Timeout = 30 * time.Second

// tick is how often a condition is checked again.
const tick = 10 * time.Millisecond

// For calls cond until it returns true, failing t after Timeout with "timed out after …
// waiting for what". cond runs on the test's goroutine.
func For(t testing.TB, what string, cond func() bool) {
	t.Helper()
	Within(t, Timeout, what, cond)
}

// Within is For with the time d instead of Timeout.
func Within(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	if cond() {
		return
	}
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	ticker := time.NewTicker(tick)
	defer ticker.Stop()
	for {
		select {
		case <-ticker.C:
			if cond() {
				return
			}
		case <-deadline.C:
			if cond() {
				return
			}
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
	}
}

// Alive reports whether a process with id pid exists (a zombie not yet reaped counts).
func Alive(pid int) bool { return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }

// Gone waits until no process has id pid (it ended and was reaped), failing t after Timeout.
func Gone(t testing.TB, pid int, what string) {
	t.Helper()
	For(t, fmt.Sprintf("%s: process %d gone", what, pid), func() bool { return !Alive(pid) })
}

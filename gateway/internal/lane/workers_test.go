package lane

import (
	"testing"
	"testing/synctest"
	"time"
)

// A worker ends workerIdle after its last call, not after its first: a call handed to it
// while it waits gives it workerIdle again from that call's end.
func TestWorkerEndsIdleAfterItsLastCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := New(Options{Take: takeLane})
		c := servePipe(t, l)
		call := func(body string) {
			t.Helper()
			c.send(rawPost("/lane", body))
			if got, _ := c.answer(); got != body {
				t.Fatalf("answer %q, want %q", got, body)
			}
			synctest.Wait() // the worker waits for its next call
		}
		call("first")
		time.Sleep(workerIdle / 2)
		call("second") // handed to the waiting worker: no worker is added from here on
		ended := make(chan struct{})
		go func() {
			l.workers.wg.Wait()
			close(ended)
		}()
		isEnded := func() bool {
			synctest.Wait()
			select {
			case <-ended:
				return true
			default:
				return false
			}
		}
		time.Sleep(workerIdle - time.Nanosecond)
		if isEnded() {
			t.Fatal("the worker ended before workerIdle after its last call")
		}
		time.Sleep(time.Nanosecond)
		if !isEnded() {
			t.Fatal("the worker is still waiting workerIdle after its last call")
		}
	})
}

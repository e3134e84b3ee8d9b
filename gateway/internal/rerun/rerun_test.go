package rerun

import (
	"sync/atomic"
	"testing"
	"testing/synctest"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Kicks before a run are one run; a kick during a run is one more; idle, nothing runs.
func TestRunnerCoalescesKicks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var runs atomic.Int32
		release := make(chan struct{})
		var r *Runner
		r = New(func() {
			if runs.Add(1) == 1 {
				<-release
			}
		})
		r.Kick()
		r.Kick()
		synctest.Wait()
		if n := runs.Load(); n != 0 {
			t.Fatalf("%d runs before Start", n)
		}
		r.Start()
		synctest.Wait() // the first run is waiting on release
		r.Kick()
		r.Kick()
		close(release)
		synctest.Wait() // idle: the goroutine has ended
		if n := runs.Load(); n != 2 {
			t.Fatalf("%d runs, want 2 (one, then one for the kicks during it)", n)
		}
		r.Close()
		r.Close()
		r.Kick()
		synctest.Wait()
		if n := runs.Load(); n != 2 {
			t.Fatalf("a kick after Close ran (%d runs)", n)
		}
	})
}

// Close waits for the run in progress.
func TestRunnerCloseWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		var done atomic.Bool
		r := New(func() { <-release; done.Store(true) })
		r.Start()
		r.Kick()
		synctest.Wait()
		closed := make(chan struct{})
		go func() { r.Close(); close(closed) }()
		synctest.Wait()
		select {
		case <-closed:
			t.Fatal("Close returned during a run")
		default:
		}
		close(release)
		<-closed
		if !done.Load() {
			t.Fatal("Close returned before the run ended")
		}
	})
}

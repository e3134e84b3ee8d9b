package lane

import (
	"sync"
	"time"
)

// workerIdle is how long a worker waits for a call before it ends.
const workerIdle = 10 * time.Second

// workers run the calls the lane took on goroutines kept for the next: a goroutine's stack
// grows to what a call's path needs (tens of KiB through an HTTP client to the upstream)
// once per worker rather than once per call, and a call is handed to a worker already
// waiting rather than a new goroutine. A worker with no call for workerIdle ends, as do the
// waiting ones when the lane is shut down.
type workers struct {
	jobs chan job
	stop chan struct{}
	once sync.Once
	wg   sync.WaitGroup
}

type job struct {
	c    *conn
	call Call
}

func newWorkers() *workers {
	return &workers{jobs: make(chan job), stop: make(chan struct{})}
}

// run runs j on a waiting worker, or a new one.
func (w *workers) run(j job) {
	select {
	case w.jobs <- j:
	default:
		w.wg.Add(1)
		go w.work(j)
	}
}

// work runs j, then the jobs it is handed, until none comes for workerIdle or the lane stops.
// Its timer is not set again per job: when it expires after a job came, the worker waits out
// the rest of workerIdle from the last one.
func (w *workers) work(j job) {
	defer w.wg.Done()
	t := time.NewTimer(workerIdle)
	defer t.Stop()
	for {
		j.c.run(j.call)
		j = job{}
		last := time.Now()
		for j.c == nil {
			select {
			case j = <-w.jobs:
			case <-t.C:
				rest := workerIdle - time.Since(last)
				if rest <= 0 {
					return
				}
				t.Reset(rest)
			case <-w.stop:
				return
			}
		}
	}
}

// close ends the waiting workers, and the others once their calls are done.
func (w *workers) close() {
	w.once.Do(func() { close(w.stop) })
}

// Package rerun runs a function on a goroutine of its own while there is reason to, and has
// no goroutine otherwise: what a gateway session needs to follow its changes without a
// goroutine per idle session.
package rerun

import "sync"

// Runner runs its function after each Kick, on a goroutine of its own: kicks that come before
// the run starts are one run, and a kick during a run makes one more run after it. Runs never
// overlap, and none starts before Start. The zero Runner is not usable; make one with New. It
// is safe for concurrent use.
type Runner struct {
	f  func()
	wg sync.WaitGroup

	mu      sync.Mutex
	started bool
	running bool
	again   bool // kicked since the running run started
	closed  bool
}

// New returns a Runner of f, which runs nothing until Start.
func New(f func()) *Runner { return &Runner{f: f} }

// Start lets runs start, one at once if kicked before.
func (r *Runner) Start() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.started = true
	r.runLocked()
}

// Kick asks for a run; it never blocks. After Close it does nothing.
func (r *Runner) Kick() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.again = true
	r.runLocked()
}

// runLocked starts the goroutine when a run is due and none runs; r.mu is held.
func (r *Runner) runLocked() {
	if r.again && r.started && !r.running && !r.closed {
		r.running = true
		r.wg.Add(1)
		go r.loop()
	}
}

func (r *Runner) loop() {
	defer r.wg.Done()
	for {
		r.mu.Lock()
		if !r.again || r.closed {
			r.running = false
			r.mu.Unlock()
			return
		}
		r.again = false
		r.mu.Unlock()
		r.f()
	}
}

// Close refuses later kicks and returns once a run in progress has returned; a run asked for
// and not started is not made. It is idempotent, and must not be called from the function.
func (r *Runner) Close() {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.wg.Wait()
}

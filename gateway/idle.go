package gateway

import (
	"sync"
	"time"
)

// idleTimer ends an HTTP session after Options.IdleTimeout without a request in flight, as
// the go-sdk's SessionTimeout did (a POST in flight holds the session; a GET stream does not,
// so a client that only listens should ping). It is the gateway's own because calls passed
// through (passthrough.go) never reach the go-sdk's handler, whose timer would end a busy
// session.
//
// A client that had a GET stream and has none now, with no request in flight, has most likely
// gone (a client process killed without DELETE: the TypeScript SDK's and the inspector's
// exit), and its session-scoped servers would run for the whole idle timeout: for such a
// session the wait is Options.SessionGrace instead, when shorter. A GET that was answered with
// no stream (refused) does not count.
type idleTimer struct {
	mu        sync.Mutex
	refs      int         // requests in flight
	streams   int         // GET requests in flight
	hadStream bool        // a GET stream was served
	t         *time.Timer // nil: not armed yet (or no wait at all)
	d, grace  time.Duration
	fire      func() // nil: not armed
	dead      bool
}

// arm starts the timer of a session: fire runs after d without requests, or after grace
// once its GET stream closed (d, grace <= 0: no such wait).
func (i *idleTimer) arm(d, grace time.Duration, fire func()) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.fire != nil || i.dead {
		return
	}
	i.d, i.grace, i.fire = d, grace, fire
	i.rearmLocked()
}

// wait is how long the session may now go without a request; <= 0: for ever.
func (i *idleTimer) wait() time.Duration {
	if i.hadStream && i.streams == 0 && i.grace > 0 && (i.d <= 0 || i.grace < i.d) {
		return i.grace
	}
	return i.d
}

// rearmLocked stops the timer and, with no request in flight, starts its wait again in full.
func (i *idleTimer) rearmLocked() {
	if i.fire == nil || i.dead {
		return
	}
	if i.t != nil {
		i.t.Stop()
	}
	w := i.wait()
	if i.refs > 0 || w <= 0 {
		return
	}
	if i.t == nil {
		i.t = time.AfterFunc(w, i.fire)
	} else {
		i.t.Reset(w)
	}
}

// begin records a request in flight; end its end, which rearms the timer when it was the last.
func (i *idleTimer) begin() {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.refs++
	if i.refs == 1 && i.t != nil {
		i.t.Stop()
	}
}

func (i *idleTimer) end() {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.refs--
	if i.refs == 0 {
		i.rearmLocked()
	}
}

// streamBegin records a GET in flight; streamEnd its end, served telling whether it was a
// stream (not refused).
func (i *idleTimer) streamBegin() {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.streams++
	i.rearmLocked()
}

func (i *idleTimer) streamEnd(served bool) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.streams--
	i.hadStream = i.hadStream || served
	i.rearmLocked()
}

// stop disarms the timer for good.
func (i *idleTimer) stop() {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.dead = true
	if i.t != nil {
		i.t.Stop()
		i.t = nil
	}
}

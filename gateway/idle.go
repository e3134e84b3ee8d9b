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
//
// The timer is lazy: a request's begin and end only count and note the time, and the timer,
// when it expires, looks at what happened since it was set (a request in flight: it waits for
// its end; one that ended since: it waits out the rest of the wait from then). So a call costs
// no timer operation, only the end of the last request while the timer is not set.
type idleTimer struct {
	mu        sync.Mutex
	refs      int         // requests in flight
	streams   int         // GET requests in flight
	hadStream bool        // a GET stream was served
	t         *time.Timer // nil: not made yet (or no wait at all)
	set       bool        // t is set to expire
	setFor    time.Time   // when t expires, while set
	due       time.Time   // when the session is idle long enough, with no request in flight
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

// rearmLocked starts the wait again in full, from now, when no request is in flight: the
// session is due then, and the timer is set to expire by then.
func (i *idleTimer) rearmLocked() {
	if i.fire == nil || i.dead || i.refs > 0 {
		return
	}
	w := i.wait()
	if w <= 0 {
		i.due = time.Time{}
		if i.t != nil && i.set {
			i.t.Stop()
			i.set = false
		}
		return
	}
	now := time.Now()
	i.due = now.Add(w)
	if i.set && !i.setFor.After(i.due) {
		return // it expires first, and waits out the rest then
	}
	i.setLocked(now, w)
}

// setLocked sets the timer to expire after w from now.
func (i *idleTimer) setLocked(now time.Time, w time.Duration) {
	i.set, i.setFor = true, now.Add(w)
	if i.t == nil {
		i.t = time.AfterFunc(w, i.expired)
	} else {
		i.t.Reset(w)
	}
}

// expired runs when the timer expires: the session's fire, if it is due, no request in flight.
func (i *idleTimer) expired() {
	i.mu.Lock()
	i.set = false
	if i.fire == nil || i.dead || i.refs > 0 || i.due.IsZero() {
		i.mu.Unlock()
		return // a request in flight sets the timer again at its end
	}
	now := time.Now()
	if rest := i.due.Sub(now); rest > 0 {
		i.setLocked(now, rest)
		i.mu.Unlock()
		return
	}
	fire := i.fire
	i.mu.Unlock()
	fire()
}

// begin records a request in flight; end its end, which starts the wait again when it was
// the last.
func (i *idleTimer) begin() {
	i.mu.Lock()
	i.refs++
	i.mu.Unlock()
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
		i.t, i.set = nil, false
	}
}

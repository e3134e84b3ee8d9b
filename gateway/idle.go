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
type idleTimer struct {
	mu   sync.Mutex
	refs int         // requests in flight
	t    *time.Timer // nil: not armed (no timeout, or stopped for good)
	d    time.Duration
	dead bool
}

// arm starts the timer of a session: fire runs after d without requests.
func (i *idleTimer) arm(d time.Duration, fire func()) {
	if d <= 0 {
		return
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.t != nil || i.dead {
		return
	}
	i.d = d
	i.t = time.AfterFunc(d, fire)
	if i.refs > 0 {
		i.t.Stop()
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
	if i.refs == 0 && i.t != nil {
		i.t.Reset(i.d)
	}
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

package ext

// Watch is a Changes stream without a goroutine or a channel of its own, for a holder of many
// streams (a gateway's idle sessions), which then costs a subscriber each and runs a goroutine
// only while it has events to handle. Its methods are safe for concurrent use.
type Watch struct{ sub *subscriber }

// Watch subscribes to the events Changes(ctx, scope) would carry, coalesced the same way.
// notify is called on the producer's goroutine each time an event is pending: it must return
// at once and call nothing of the registry (start a goroutine, or wake one, that calls Take).
// The watch ends at Stop, when CloseScope ends its scope, and at Close, as a Changes stream
// does; a scope naming another pool, or a call after Close, gets a watch ended already.
func (r *Registry) Watch(scope Scope, notify func()) *Watch {
	sub := &subscriber{scope: scope, done: make(chan struct{}), notify: notify}
	w := &Watch{sub: sub}
	if scope.PoolID != "" && scope.PoolID != r.poolID {
		sub.stop()
		return w
	}
	s := &r.subs
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		sub.stop()
		return w
	}
	sub.owner = s
	s.all[sub] = struct{}{}
	addTo(s.bySession, scope.SessionID, sub)
	addTo(s.byAgent, scope.AgentName, sub)
	return w
}

// Take returns the events pending, oldest first, and forgets them; none once the watch ended.
func (w *Watch) Take() []ChangeEvent {
	select {
	case <-w.sub.done:
		return nil
	default:
	}
	var evs []ChangeEvent
	for {
		ev, ok := w.sub.pop()
		if !ok {
			return evs
		}
		evs = append(evs, ev)
	}
}

// Done is closed once the watch has ended.
func (w *Watch) Done() <-chan struct{} { return w.sub.done }

// Stop ends the watch; notify is not called once it returned. It is idempotent.
func (w *Watch) Stop() { w.sub.stop() }

package ext

import (
	"slices"
	"sync"
)

// held are the announcements a Hold defers.
type held struct {
	mu     sync.Mutex
	n      int // holds not yet released
	events []heldEvent
	agents []string // agents touched (TouchAgent), in order, each once
}

type heldEvent struct {
	e  *entry
	ev ChangeEvent
}

// Hold defers the announcements of Register, Unregister and TouchAgent (see announce) until
// every Hold made is released, then delivers them together: a batch of registrations (a config reload
// removing one server and adding another) reaches each subscriber as one burst, which it
// coalesces, so each session's view is compiled and its client told once rather than once per
// registration. Queries see each registration at once; only the events wait. Capabilities'
// own events are never held. release is safe to call more than once.
func (r *Registry) Hold() (release func()) {
	r.held.mu.Lock()
	r.held.n++
	r.held.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			r.held.mu.Lock()
			r.held.n--
			var out []heldEvent
			var agents []string
			if r.held.n == 0 {
				out, r.held.events = r.held.events, nil
				agents, r.held.agents = r.held.agents, nil
			}
			r.held.mu.Unlock()
			for _, h := range out {
				r.deliver(h.e, h.ev)
			}
			for _, name := range agents {
				r.announceAgent(name)
			}
		})
	}
}

// holding queues ev of e when a Hold is in force and reports whether it did.
func (r *Registry) holding(e *entry, ev ChangeEvent) bool {
	r.held.mu.Lock()
	defer r.held.mu.Unlock()
	if r.held.n == 0 {
		return false
	}
	r.held.events = append(r.held.events, heldEvent{e, ev})
	return true
}

// holdingAgent queues the announcement of TouchAgent(name) when a Hold is in force and
// reports whether it did.
func (r *Registry) holdingAgent(name string) bool {
	r.held.mu.Lock()
	defer r.held.mu.Unlock()
	if r.held.n == 0 {
		return false
	}
	if !slices.Contains(r.held.agents, name) {
		r.held.agents = append(r.held.agents, name)
	}
	return true
}

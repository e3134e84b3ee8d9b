package ext

import "sync"

// Notifier implements ChangeObservable for embedding in capabilities. The zero value is ready.
type Notifier struct {
	mu   sync.Mutex
	next uint64
	subs map[uint64]func(ChangeEvent)
}

// Observe registers fn; see ChangeObservable.
func (n *Notifier) Observe(fn func(ChangeEvent)) (stop func()) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.subs == nil {
		n.subs = make(map[uint64]func(ChangeEvent))
	}
	id := n.next
	n.next++
	n.subs[id] = fn
	return func() {
		n.mu.Lock()
		delete(n.subs, id)
		n.mu.Unlock()
	}
}

// Emit calls every registered callback with ev. Callbacks run on the caller's goroutine and must
// not block (see ChangeObservable); Emit holds no lock while calling them.
func (n *Notifier) Emit(ev ChangeEvent) {
	n.mu.Lock()
	fns := make([]func(ChangeEvent), 0, len(n.subs))
	for _, fn := range n.subs {
		fns = append(fns, fn)
	}
	n.mu.Unlock()
	for _, fn := range fns {
		fn(ev)
	}
}

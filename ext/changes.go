package ext

import (
	"context"
	"sync"
)

// maxPending bounds a subscriber's pending set of distinct (capability, kind, source URI)
// events. Beyond it, new events lose their SourceURI and coalesce per (capability, kind), so the
// set holds at most maxPending plus one entry per (capability, kind) pair.
const maxPending = 1024

// pendKey is what a subscriber coalesces on.
type pendKey struct {
	cap  Capability
	kind ChangeKind
	uri  string
}

// subscriber is one Changes stream or Watch. A stream's goroutine owns out; producers only
// touch pending.
type subscriber struct {
	scope Scope
	out   chan ChangeEvent
	wake  chan struct{} // capacity 1: "pending is not empty"
	done  chan struct{} // closed to end the stream
	once  sync.Once
	// notify, for a Watch, is told of each event instead of wake; its subscriber has no
	// goroutine, so stop removes it from owner.
	notify func()
	owner  *subscribers

	mu      sync.Mutex
	pending map[pendKey]string // → capability name for the event
	queue   []pendKey          // arrival order of pending keys
}

// subscribers indexes the live Changes streams so fan-out touches only those that can see the
// emitting capability.
type subscribers struct {
	mu        sync.RWMutex
	closed    bool
	all       map[*subscriber]struct{}
	bySession map[string]map[*subscriber]struct{} // "" holds session-less subscribers
	byAgent   map[string]map[*subscriber]struct{} // "" holds agent-less subscribers
	wg        sync.WaitGroup
}

func (s *subscribers) init() {
	s.all = make(map[*subscriber]struct{})
	s.bySession = make(map[string]map[*subscriber]struct{})
	s.byAgent = make(map[string]map[*subscriber]struct{})
}

func addTo(m map[string]map[*subscriber]struct{}, k string, sub *subscriber) {
	set := m[k]
	if set == nil {
		set = make(map[*subscriber]struct{}, 1)
		m[k] = set
	}
	set[sub] = struct{}{}
}

func removeFrom(m map[string]map[*subscriber]struct{}, k string, sub *subscriber) {
	if set := m[k]; set != nil {
		delete(set, sub)
		if len(set) == 0 {
			delete(m, k)
		}
	}
}

func (s *subscribers) remove(sub *subscriber) {
	s.mu.Lock()
	delete(s.all, sub)
	removeFrom(s.bySession, sub.scope.SessionID, sub)
	removeFrom(s.byAgent, sub.scope.AgentName, sub)
	s.mu.Unlock()
}

// end stops every subscriber for which match is true.
func (s *subscribers) end(match func(Scope) bool) {
	s.mu.RLock()
	var hit []*subscriber
	for sub := range s.all {
		if match(sub.scope) {
			hit = append(hit, sub)
		}
	}
	s.mu.RUnlock()
	for _, sub := range hit {
		sub.stop()
	}
}

// closeAll stops every subscriber, refuses new ones and waits for their goroutines.
func (s *subscribers) closeAll() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.end(func(Scope) bool { return true })
	s.wg.Wait()
}

func (sub *subscriber) stop() {
	sub.once.Do(func() {
		close(sub.done)
		if sub.owner != nil {
			sub.owner.remove(sub)
		}
	})
}

// push records ev without ever blocking.
func (sub *subscriber) push(c Capability, name string, ev ChangeEvent) {
	k := pendKey{cap: c, kind: ev.Kind, uri: ev.SourceURI}
	if ev.Capability != "" {
		name = ev.Capability
	}
	sub.mu.Lock()
	if _, ok := sub.pending[k]; ok {
		sub.mu.Unlock()
		return
	}
	if len(sub.pending) >= maxPending && k.uri != "" {
		k.uri = "" // keep the fact, lose the detail
		if _, ok := sub.pending[k]; ok {
			sub.mu.Unlock()
			return
		}
	}
	if sub.pending == nil {
		sub.pending = make(map[pendKey]string) // made on need: most subscribers idle
	}
	sub.pending[k] = name
	sub.queue = append(sub.queue, k)
	sub.mu.Unlock()
	if sub.notify != nil {
		sub.notify()
		return
	}
	select {
	case sub.wake <- struct{}{}:
	default:
	}
}

// pop takes the oldest pending event.
func (sub *subscriber) pop() (ChangeEvent, bool) {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	if len(sub.queue) == 0 {
		return ChangeEvent{}, false
	}
	k := sub.queue[0]
	sub.queue = sub.queue[1:]
	if len(sub.queue) == 0 {
		sub.queue = nil
	}
	name := sub.pending[k]
	delete(sub.pending, k)
	return ChangeEvent{Capability: name, Kind: k.kind, SourceURI: k.uri}, true
}

func (sub *subscriber) run(ctx context.Context, owner *subscribers) {
	defer owner.wg.Done()
	defer close(sub.out)
	defer owner.remove(sub)
	for {
		ev, ok := sub.pop()
		if !ok {
			select {
			case <-sub.wake:
				continue
			case <-sub.done:
				return
			case <-ctx.Done():
				return
			}
		}
		select {
		case sub.out <- ev:
		case <-sub.done:
			return
		case <-ctx.Done():
			return
		}
	}
}

// Changes returns a stream of the change events of every ChangeObservable capability scope
// sees, including capabilities registered after the call. Events are coalesced per
// (capability, kind, source URI) while the caller is not reading: a producer never blocks and
// a slow reader never loses the fact that something changed (past 1024 distinct pending events
// the source URI is dropped and events coalesce per (capability, kind)). An event whose
// Capability is empty is filled with the registered name.
//
// The channel is closed when ctx ends, when CloseScope ends the subscriber's scope (its
// session, its session-qualified agent, its turn, or — for a session-less scope — its static
// agent), or at Close. A scope naming another pool, or a call after Close, gets a closed
// channel. The goroutine behind the stream is owned by the registry and gone once the channel
// is closed.
func (r *Registry) Changes(ctx context.Context, scope Scope) <-chan ChangeEvent {
	if ctx == nil {
		ctx = context.Background()
	}
	sub := &subscriber{
		scope: scope,
		out:   make(chan ChangeEvent),
		wake:  make(chan struct{}, 1),
		done:  make(chan struct{}),
	}
	if scope.PoolID != "" && scope.PoolID != r.poolID {
		close(sub.out)
		return sub.out
	}
	s := &r.subs
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		close(sub.out)
		return sub.out
	}
	s.all[sub] = struct{}{}
	addTo(s.bySession, scope.SessionID, sub)
	addTo(s.byAgent, scope.AgentName, sub)
	s.wg.Add(1)
	s.mu.Unlock()
	go sub.run(ctx, s)
	return sub.out
}

// fanout hands ev from e's capability to every subscriber that sees e.
func (r *Registry) fanout(e *entry, ev ChangeEvent) {
	if !e.live.Load() {
		return
	}
	r.deliver(e, ev)
}

// deliver is fanout for an entry live or not: an announcement a Hold deferred past the
// entry's Unregister still tells its subscribers it went away.
func (r *Registry) deliver(e *entry, ev ChangeEvent) {
	e.gen.Add(1)
	s := &r.subs
	s.mu.RLock()
	defer s.mu.RUnlock()
	var set map[*subscriber]struct{}
	switch {
	case e.level == LevelPool:
		set = s.all
	case e.level == LevelAgent && e.slot.SessionID == "":
		set = s.byAgent[e.slot.AgentName]
	default:
		set = s.bySession[e.slot.SessionID]
	}
	for sub := range set {
		if slotVisibleTo(e.level, e.slot, sub.scope) {
			sub.push(e.cap, e.name, ev)
		}
	}
}

// slotVisibleTo reports whether a capability in the (normalized) slot of level is visible to a
// query for scope of this registry's pool. It is the rule Visible implements with indexes.
func slotVisibleTo(level ScopeLevel, slot Scope, scope Scope) bool {
	switch level {
	case LevelPool:
		return true
	case LevelSession:
		return scope.SessionID == slot.SessionID
	case LevelAgent:
		if scope.AgentName != slot.AgentName {
			return false
		}
		return slot.SessionID == "" || scope.SessionID == slot.SessionID
	case LevelTurn:
		return scope.SessionID == slot.SessionID && scope.AgentName == slot.AgentName &&
			scope.TurnID == slot.TurnID
	}
	return false
}

// observe subscribes the registry to e's capability when it is a ChangeObservable. It runs
// outside the registry's locks: Observe is capability code.
func (r *Registry) observe(e *entry) {
	obs, ok := e.cap.(ChangeObservable)
	if !ok {
		return
	}
	stop := obs.Observe(func(ev ChangeEvent) { r.fanout(e, ev) })
	e.obsMu.Lock()
	if e.removed {
		e.obsMu.Unlock()
		if stop != nil {
			stop()
		}
		return
	}
	e.stop = stop
	e.obsMu.Unlock()
}

// unobserve stops forwarding e's events; safe to call more than once and before observe ran.
func (e *entry) unobserve() {
	e.live.Store(false)
	e.obsMu.Lock()
	e.removed = true
	stop := e.stop
	e.stop = nil
	e.obsMu.Unlock()
	if stop != nil {
		stop()
	}
}

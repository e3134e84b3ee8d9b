package ext

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// OnClose adds fn to run at Close after every capability has been closed, in reverse order of
// the OnClose calls (the connection pool, added first, goes last). Each fn gets a context
// bounded by CloseTimeout and is abandoned with a logged error past it. If the registry is
// already closed, fn runs at once, bounded the same way, and its error is logged. A nil fn is
// ignored.
func (r *Registry) OnClose(fn func(ctx context.Context) error) {
	if fn == nil {
		return
	}
	r.mu.Lock()
	if !r.closed {
		r.onClose = append(r.onClose, fn)
		r.mu.Unlock()
		return
	}
	r.mu.Unlock()
	if err := r.closeBounded(context.Background(), "OnClose function", fn); err != nil {
		r.log.Error("ext: OnClose after registry close", "err", err)
	}
}

// closeBounded runs fn with a context bounded by CloseTimeout and waits at most that long. A fn
// still running then is abandoned (its goroutine finishes on its own) and reported. A panic in
// fn is returned as an error.
func (r *Registry) closeBounded(ctx context.Context, what string, fn func(context.Context) error) error {
	cctx, cancel := context.WithTimeout(ctx, r.closeTimeout)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- fmt.Errorf("panic: %v", p)
			}
		}()
		done <- fn(cctx)
	}()
	var err error
	select {
	case err = <-done:
	case <-cctx.Done():
		select {
		case err = <-done: // finished just as time ran out
		default:
			err = fmt.Errorf("close %s: abandoned after %v: %w", what, r.closeTimeout, cctx.Err())
			r.log.Error("ext: close abandoned", "what", what, "timeout", r.closeTimeout, "err", cctx.Err())
			return err
		}
	}
	if err != nil {
		return fmt.Errorf("close %s: %w", what, err)
	}
	return nil
}

// closeEntries closes entries level by level, turn first, concurrently within a level.
func (r *Registry) closeEntries(ctx context.Context, entries []*entry) error {
	var byLevel [4][]*entry
	for _, e := range entries {
		byLevel[e.level] = append(byLevel[e.level], e)
	}
	var errs []error
	for lvl := LevelTurn; lvl >= LevelPool; lvl-- {
		list := byLevel[lvl]
		if len(list) == 0 {
			continue
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		for _, e := range list {
			wg.Go(func() {
				what := fmt.Sprintf("capability %q at %s %s", e.name, e.level, e.slot)
				if err := r.closeBounded(ctx, what, e.cap.Close); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
	}
	return errors.Join(errs...)
}

// toCloseLocked returns the capabilities of removed that no registration or composition
// holds any more, each once, at the deepest level it was removed from (so closeEntries closes
// it with that level). A capability still registered in another slot, or still a member of a
// registered composite, is left to its other holders.
func (r *Registry) toCloseLocked(removed []*entry) []*entry {
	idx := make(map[Capability]int, len(removed))
	var out []*entry
	for _, e := range removed {
		if r.refs[e.cap] > 0 {
			continue
		}
		if i, ok := idx[e.cap]; ok {
			if e.level > out[i].level {
				out[i] = e
			}
			continue
		}
		idx[e.cap] = len(out)
		out = append(out, e)
	}
	return out
}

// allEntriesLocked returns every registration.
func (r *Registry) allEntriesLocked() []*entry {
	out := append([]*entry(nil), r.pool...)
	for _, l := range r.agents {
		out = append(out, l...)
	}
	for _, s := range r.sessions {
		out = append(out, s.caps...)
		for _, l := range s.agents {
			out = append(out, l...)
		}
		for _, turns := range s.turns {
			for _, l := range turns {
				out = append(out, l...)
			}
		}
	}
	return out
}

// CloseScope ends a session, agent or turn: it unregisters and closes the capabilities of the
// slots below scope (turn first, then agent, then session; concurrently within a level, each
// bounded by CloseTimeout) and ends the Changes streams living in them. The deepest non-empty
// field decides:
//   - TurnID (with SessionID and AgentName): that turn's slot. Streams of exactly that turn end.
//   - AgentName with SessionID: that session's slot for the agent and the agent's turns in the
//     session. Streams of that session and agent end.
//   - AgentName alone: the static agent slot and the agent's turns in every session. Streams
//     of that agent without a session, and of its turns, end.
//   - SessionID alone: the session slot, its session-qualified agent slots and its turns.
//     Every stream of that session ends.
//
// A capability also registered in a slot that stays, or held as a composition member by a
// registered capability, is unregistered from the closed slots but not closed: its other
// holders still use it. One registered in several closed slots is closed once.
//
// An empty scope is an error (use Close); a turn without session and agent is an error; a
// scope naming another pool closes nothing. Close errors are joined. After Close it returns
// ErrClosed.
func (r *Registry) CloseScope(ctx context.Context, scope Scope) error {
	if scope.SessionID == "" && scope.AgentName == "" && scope.TurnID == "" {
		return fmt.Errorf("close scope %s: empty scope (use Close to close the registry)", scope)
	}
	if scope.TurnID != "" && (scope.SessionID == "" || scope.AgentName == "") {
		return fmt.Errorf("close scope %s: a turn needs SessionID and AgentName", scope)
	}
	if scope.PoolID != "" && scope.PoolID != r.poolID {
		return nil
	}
	sid, agent, turn := scope.SessionID, scope.AgentName, scope.TurnID
	var match func(Scope) bool
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return fmt.Errorf("close scope %s: registry: %w", scope, ErrClosed)
	}
	var victims []*entry
	sess := r.sessions[sid]
	switch {
	case turn != "":
		if sess != nil {
			victims = append(victims, sess.turns[agent][turn]...)
		}
		match = func(s Scope) bool { return s.SessionID == sid && s.AgentName == agent && s.TurnID == turn }
	case agent != "" && sid != "":
		if sess != nil {
			victims = append(victims, sess.agents[agent]...)
			for _, l := range sess.turns[agent] {
				victims = append(victims, l...)
			}
		}
		match = func(s Scope) bool { return s.SessionID == sid && s.AgentName == agent }
	case agent != "":
		victims = append(victims, r.agents[agent]...)
		for id := range r.turnSess[agent] {
			s := r.sessions[id]
			if s == nil {
				continue
			}
			for _, l := range s.turns[agent] {
				victims = append(victims, l...)
			}
		}
		match = func(s Scope) bool { return s.AgentName == agent && (s.SessionID == "" || s.TurnID != "") }
	default:
		if sess != nil {
			victims = append(victims, sess.caps...)
			for _, l := range sess.agents {
				victims = append(victims, l...)
			}
			for _, turns := range sess.turns {
				for _, l := range turns {
					victims = append(victims, l...)
				}
			}
		}
		match = func(s Scope) bool { return s.SessionID == sid }
	}
	for _, e := range victims {
		r.removeLocked(e)
	}
	closing := r.toCloseLocked(victims)
	r.mu.Unlock()

	for _, e := range victims {
		e.unobserve()
	}
	r.subs.end(func(s Scope) bool {
		return (s.PoolID == "" || s.PoolID == r.poolID) && match(s)
	})
	if err := r.closeEntries(ctx, closing); err != nil {
		return fmt.Errorf("close scope %s: %w", scope, err)
	}
	return nil
}

// Close closes the registry: it stops forwarding changes and ends every Changes stream, closes
// every capability (turn, then agent, then session, then pool; concurrently within a level;
// each bounded by CloseTimeout, a hung one abandoned with a logged error while the rest still
// close; a capability registered in several slots is closed once), then runs the OnClose
// functions in reverse order. It returns within about five CloseTimeouts, with every error
// joined. Close is idempotent: later calls wait for the first (or for ctx) and return nil. After
// Close, Register and the other mutators return ErrClosed and queries see nothing.
func (r *Registry) Close(ctx context.Context) error {
	first := false
	r.closeOnce.Do(func() { first = true })
	if !first {
		select {
		case <-r.closeDone:
		case <-ctx.Done():
		}
		return nil
	}
	defer close(r.closeDone)

	r.mu.Lock()
	r.closed = true
	entries := r.allEntriesLocked()
	for _, e := range entries {
		r.removeLocked(e)
	}
	closing := r.toCloseLocked(entries)
	fns := r.onClose
	r.onClose = nil
	r.mu.Unlock()

	for _, e := range entries {
		e.unobserve()
	}
	r.subs.closeAll()
	var errs []error
	if err := r.closeEntries(ctx, closing); err != nil {
		errs = append(errs, err)
	}
	for i := len(fns) - 1; i >= 0; i-- {
		if err := r.closeBounded(ctx, fmt.Sprintf("OnClose function %d", i), fns[i]); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

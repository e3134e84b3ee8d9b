package host

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/agentpool/agentpool/ext"
)

// batch is one reconciliation in progress: the state it makes and, by key, the entry applied
// and its capability for every entry handled so far (kept or started).
type batch struct {
	h       *Host
	st      *State
	applied map[Key]*Entry
	caps    map[Key]ext.Capability
}

// cap returns the capability of the entry k, made or kept earlier in the same reconciliation
// (an entry's After), else the one the state holds (a session opening reads the pool's), or
// nil.
func (b *batch) cap(k Key) ext.Capability {
	if c, ok := b.caps[k]; ok {
		return c
	}
	return b.st.caps[k]
}

// failure is one entry the reconciler could not apply.
type failure struct {
	op  string // "build" or "register"
	e   *Entry
	err error
}

// outcome is what a reconciliation did.
type outcome struct {
	// applied are the entries now registered, in plan order: the new plan's, with the old
	// entry in place of one whose new capability could not be made or registered.
	applied []*Entry
	caps    map[Key]ext.Capability
	// replaced are the keys whose running capability was replaced by a new one.
	replaced []*Entry
	failures []failure
}

// errs returns the failures as one error, each "<op> <source>: <error>".
func (o *outcome) err() error {
	var errs []error
	for _, f := range o.failures {
		errs = append(errs, fmt.Errorf("%s %s: %w", f.op, f.e.Source, f.err))
	}
	return errors.Join(errs...)
}

// reconcile makes the registry hold next instead of old (entries it registered earlier, whose
// capabilities it finds in the registry). It works as Caddy loads a config: first it makes
// every capability that is new or whose declaration (or an After entry) changed, leaving the
// running ones untouched; an entry whose capability cannot be made keeps the one it had (or
// stays absent) and is a failure. Then, for each difference, it unregisters the old capability
// and registers the new one (putting the old one back when the registry refuses the new one,
// and keeping for every entry made from the refused one, its After, what that entry had),
// and only then stops the old one (closing it, bounded by ext.DefaultCloseTimeout, and retiring
// its pooled client). Entries of old that next lacks are unregistered and stopped. Every
// failure is collected; the rest is applied.
//
// With all (Build, a session opening) any failure undoes the whole: what was made is closed,
// what was registered unregistered, and nothing of old was touched (old must then be empty).
//
// publish, if not nil, is called between making and swapping, with the entries and
// capabilities the registry is about to hold: what a reader learns from the host's state is then never older
// than what the registry announces. It is called again when the registry refuses a new
// capability, before that one is closed: no published state holds a closed capability.
func (h *Host) reconcile(ctx context.Context, st *State, old, next []*Entry, all bool, publish func([]*Entry, map[Key]ext.Capability)) *outcome {
	ctx = context.WithoutCancel(ctx)
	b := &batch{h: h, st: st, applied: map[Key]*Entry{}, caps: map[Key]ext.Capability{}}
	oldIdx := Plan{Entries: old}.index()
	running := h.registered(old)
	started := map[Key]ext.Capability{}
	out := &outcome{caps: b.caps}
	var order []*Entry // the entries applied, in next's order
	for _, e := range next {
		o := oldIdx[e.Key]
		changed := o == nil || running[e.Key] == nil || !reflect.DeepEqual(o.Decl, e.Decl) ||
			slices.ContainsFunc(e.After, func(k Key) bool { return started[k] != nil })
		if !changed {
			b.applied[e.Key], b.caps[e.Key] = o, running[e.Key]
			order = append(order, o)
			continue
		}
		c, err := e.start(ctx, b)
		if err != nil {
			if c != nil {
				_ = h.closeBounded(ctx, c)
			}
			out.failures = append(out.failures, failure{"build", e, err})
			if o != nil && running[e.Key] != nil {
				b.applied[e.Key], b.caps[e.Key] = o, running[e.Key]
				order = append(order, o)
			}
			continue
		}
		started[e.Key] = c
		b.applied[e.Key], b.caps[e.Key] = e, c
		order = append(order, e)
	}
	if all && len(out.failures) > 0 {
		for _, e := range slices.Backward(order) {
			if c := started[e.Key]; c != nil {
				_ = h.closeBounded(ctx, c)
			}
		}
		return out
	}
	// republish publishes again what the registry is to hold, once an entry of order has gone
	// back to its old capability (or to none): no published state holds a capability closed.
	republish := func(order []*Entry) {
		if publish != nil {
			publish(slices.DeleteFunc(slices.Clone(order), func(e *Entry) bool { return e == nil }), b.caps)
		}
	}
	republish(order)

	// Removed: in old, not in next.
	var stop []func()
	for _, o := range slices.Backward(old) {
		if _, kept := b.applied[o.Key]; kept {
			continue
		}
		if c := running[o.Key]; c != nil {
			if err := h.Registry.Unregister(o.Key.Level, o.Key.Slot, o.Key.Name); err != nil && !errors.Is(err, ext.ErrNotFound) {
				out.failures = append(out.failures, failure{"unregister", o, err})
			}
			stop = append(stop, func() { h.stopEntry(ctx, o, c) })
		}
	}
	for _, f := range stop {
		f() // before the new ones register: a removed server's client retired before another takes its key
	}
	// Added and replaced, in plan order.
	var registered []*Entry
	refused := map[Key]*Entry{} // entries whose new capability was closed unregistered
	for i, e := range order {
		c := started[e.Key]
		if c == nil {
			continue
		}
		o, had := oldIdx[e.Key], running[e.Key] != nil
		if j := slices.IndexFunc(e.After, func(k Key) bool { return refused[k] != nil }); j >= 0 {
			// Made from a capability that was refused and closed: the entry keeps what it had,
			// made from the one that went back.
			out.failures = append(out.failures, failure{"register", e, fmt.Errorf("made from %s, which was not applied", refused[e.After[j]].Source)})
			refused[e.Key] = e
			delete(b.caps, e.Key)
			order[i] = nil
			if had {
				b.caps[e.Key], order[i] = running[e.Key], o
			}
			republish(order)
			h.stopEntry(ctx, e, c)
			continue
		}
		if had {
			if err := h.Registry.Unregister(e.Key.Level, e.Key.Slot, e.Key.Name); err != nil && !errors.Is(err, ext.ErrNotFound) {
				out.failures = append(out.failures, failure{"unregister", e, err})
				refused[e.Key] = e
				b.caps[e.Key], order[i] = running[e.Key], o
				republish(order)
				_ = h.closeBounded(ctx, c)
				continue
			}
		}
		if err := h.Registry.Register(c, e.Key.Level, e.Key.Slot, e.Opts...); err != nil {
			refused[e.Key] = e
			delete(b.caps, e.Key)
			order[i] = nil
			var lost error // why the old one could not go back
			if had {
				if lost = h.Registry.Register(running[e.Key], o.Key.Level, o.Key.Slot, o.Opts...); lost == nil {
					b.caps[e.Key], order[i] = running[e.Key], o // as it was
				} else {
					lost = fmt.Errorf("the running one could not go back: %w", lost)
				}
			}
			out.failures = append(out.failures, failure{"register", e, errors.Join(err, lost)})
			republish(order) // the refused capability leaves the published state before it closes
			_ = h.closeBounded(ctx, c)
			if lost != nil {
				h.stopEntry(ctx, o, running[e.Key]) // registered nowhere any more: it ends
			}
			if all {
				for _, r := range slices.Backward(registered) {
					_ = h.Registry.Unregister(r.Key.Level, r.Key.Slot, r.Key.Name)
					_ = h.closeBounded(ctx, started[r.Key])
				}
				for _, later := range order[i+1:] {
					if later != nil && started[later.Key] != nil {
						_ = h.closeBounded(ctx, started[later.Key])
					}
				}
				return out
			}
			continue
		}
		registered = append(registered, e)
		if had {
			h.retireEntry(ctx, o, running[e.Key], c) // the new one in place: the old one ends
			out.replaced = append(out.replaced, e)
		}
	}
	out.applied = slices.DeleteFunc(order, func(e *Entry) bool { return e == nil })
	return out
}

// registered returns the capabilities the registry holds for the keys of entries.
func (h *Host) registered(entries []*Entry) map[Key]ext.Capability {
	out := make(map[Key]ext.Capability, len(entries))
	bySlot := map[Key]map[string]ext.Capability{} // slot (Name empty) → name → capability
	for _, e := range entries {
		slot := Key{Level: e.Key.Level, Slot: e.Key.Slot}
		names, ok := bySlot[slot]
		if !ok {
			names = map[string]ext.Capability{}
			for _, r := range h.Registry.Registrations(e.Key.Slot) {
				if r.Level == e.Key.Level && r.Slot == e.Key.Slot {
					names[r.Capability.Name()] = r.Capability
				}
			}
			bySlot[slot] = names
		}
		if c := names[e.Key.Name]; c != nil {
			out[e.Key] = c
		}
	}
	return out
}

// retireEntry ends old, entry o's capability, which the reconciler replaced by next: at once,
// or, when o hands old's work over to next, once the work in flight on old is done (its drain,
// bounded by the entry and by the host's Close), on a goroutine, so that a reload does not
// wait for the calls of the servers it replaced.
func (h *Host) retireEntry(ctx context.Context, o *Entry, old, next ext.Capability) {
	var drain func(context.Context) error
	if o.handOver != nil {
		drain = o.handOver(old, next)
	}
	if drain == nil {
		h.stopEntry(ctx, o, old)
		return
	}
	h.drains.Go(func() {
		if err := drain(h.drainCtx); err != nil {
			h.logger.Warn("reload: replaced capability still busy; ending it", "name", o.Key.Name, "err", err)
		}
		h.stopEntry(ctx, o, old)
	})
}

// stopDrains ends the drains retireEntry started, stopping what they wait for, and waits for
// them until ctx ends.
func (h *Host) stopDrains(ctx context.Context) error {
	h.endDrains()
	done := make(chan struct{})
	go func() { h.drains.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("replaced capabilities still ending: %w", ctx.Err())
	}
}

// stopEntry ends c, entry e's capability, which the reconciler unregistered.
func (h *Host) stopEntry(ctx context.Context, e *Entry, c ext.Capability) {
	var err error
	if e.stop != nil {
		err = e.stop(ctx, c)
	} else {
		err = h.closeBounded(ctx, c)
	}
	if err != nil {
		h.logger.Warn("reload: close replaced capability", "name", e.Key.Name, "err", err)
	}
}

// closeBounded closes c, bounded as the registry bounds each capability's Close
// (ext.DefaultCloseTimeout): a server that stopped answering must not hold a reload, and with
// it every session opening or closing, for as long as its own call timeout.
func (h *Host) closeBounded(ctx context.Context, c ext.Capability) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ext.DefaultCloseTimeout)
	defer cancel()
	return c.Close(ctx)
}

package view

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/agentpool/agentpool/ext"
)

// Cache keeps one compiled view per scope and recompiles it only when something that scope
// sees has changed: a capability registered or unregistered in one of its slots, or a change
// event from a capability it sees (the RFC's hot-swap listener). It asks the registry for the
// scope's ext.Stamp on every Get — one pass over the visible registrations, no goroutine per
// scope — so an event invalidates exactly the scopes that see the capability that sent it.
//
// Views are compiled without a prompt: use View.TurnInstructions for a turn's selected skills.
// Concurrent Gets of a stale scope compile it once. A Cache is safe for concurrent use.
type Cache struct {
	reg   *ext.Registry
	retry time.Duration
	opts  *Options

	mu      sync.Mutex
	entries map[ext.Scope]*cacheEntry
	twins   map[ext.Stamp]twin // the last view compiled at each stamp, for scopes that see the same
}

// twin is a view compiled for some scope, and the registrations it was compiled from: another
// scope seeing exactly these registrations, at the same stamp, would compile the same view.
type twin struct {
	regs []ext.Registration
	view *View
}

type cacheEntry struct {
	lock  chan struct{} // capacity 1, held while compiling; a channel so a waiter can give up
	stamp ext.Stamp
	view  *View
	at    time.Time // when view was compiled
}

// DefaultRetryProblems is how long a Cache keeps a view that has Problems before compiling
// it again.
const DefaultRetryProblems = 5 * time.Second

// CacheOptions configures a Cache. A nil *CacheOptions and zero fields mean defaults.
type CacheOptions struct {
	// RetryProblems is how long a view with Problems is served before Get compiles it again
	// (default DefaultRetryProblems). A degraded server recovers only when asked, and a view
	// that left it out would otherwise never ask: this is how its tools come back.
	RetryProblems time.Duration
	// Compile, when set, are the options of every compile (its Prompt is ignored: see Cache):
	// an agent's Include and Tools filter, for a cache that serves that agent's scopes.
	Compile *Options
}

// NewCache returns an empty cache over reg.
func NewCache(reg *ext.Registry, opts *CacheOptions) *Cache {
	c := &Cache{reg: reg, retry: DefaultRetryProblems, entries: make(map[ext.Scope]*cacheEntry), twins: make(map[ext.Stamp]twin)}
	if opts != nil && opts.RetryProblems > 0 {
		c.retry = opts.RetryProblems
	}
	if opts != nil && opts.Compile != nil {
		o := *opts.Compile
		o.Prompt = ""
		c.opts = &o
	}
	return c
}

// Get returns scope's view, compiling it when there is none or it is stale. A Get that finds
// another compiling the same scope waits for it, but no longer than ctx lasts (then it
// returns ctx's error).
func (c *Cache) Get(ctx context.Context, scope ext.Scope) (*View, error) {
	stamp := c.reg.Stamp(scope)
	c.mu.Lock()
	e := c.entries[scope]
	if e == nil {
		e = &cacheEntry{lock: make(chan struct{}, 1)}
		c.entries[scope] = e
	}
	c.mu.Unlock()
	select {
	case e.lock <- struct{}{}:
	default: // another Get is compiling: wait for it as long as ctx lasts
		select {
		case e.lock <- struct{}{}:
		case <-ctx.Done():
			return nil, fmt.Errorf("view of %s: %w", scope, ctx.Err())
		}
	}
	defer func() { <-e.lock }()
	if e.view != nil && e.stamp == stamp && (len(e.view.Problems) == 0 || time.Since(e.at) < c.retry) {
		return e.view, nil
	}
	// The stamp is taken before compiling: a change during the compile makes the next Get
	// compile again rather than keep a view that may predate it.
	stamp = c.reg.Stamp(scope)
	regs := c.reg.Registrations(scope)
	if v := c.twinOf(scope, stamp, regs); v != nil {
		e.view, e.stamp, e.at = v, stamp, time.Now()
		return v, nil
	}
	v, err := Compile(ctx, c.reg, scope, c.opts)
	if err != nil {
		return nil, err
	}
	e.view, e.stamp, e.at = v, stamp, time.Now()
	c.keepTwin(stamp, regs, v)
	return v, nil
}

// twinOf returns scope's view made from a view compiled for another scope that sees exactly
// the same registrations at the same stamp (many client sessions with no capability of their
// own see just the pool's), or nil when there is none. A compile is a function of the
// visible registrations (in order, with their levels, slots and origins), the events they
// reported (the stamp) and the cache's options, so the twin's view is this scope's, but for
// its Scope field, which the copy gets. A twin with problems is not shared: its retry time is
// its own scope's.
func (c *Cache) twinOf(scope ext.Scope, stamp ext.Stamp, regs []ext.Registration) *View {
	c.mu.Lock()
	t, ok := c.twins[stamp]
	c.mu.Unlock()
	if !ok || len(t.view.Problems) > 0 || !sameRegistrations(t.regs, regs) {
		return nil
	}
	if t.view.Scope == scope {
		return t.view
	}
	cp := *t.view
	cp.Scope = scope
	return &cp
}

// keepTwin records v, compiled from regs at stamp, for twinOf. Twins of stamps no scope
// holds any longer are dropped once there are more twins than scopes.
func (c *Cache) keepTwin(stamp ext.Stamp, regs []ext.Registration, v *View) {
	if !shareable(regs) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.twins[stamp] = twin{regs: regs, view: v}
	if len(c.twins) > 2*len(c.entries)+16 {
		held := make(map[ext.Stamp]bool, len(c.entries))
		for _, e := range c.entries {
			held[e.stamp] = true // read without e.lock: a stale stamp only keeps a twin longer
		}
		for st := range c.twins {
			if !held[st] && st != stamp {
				delete(c.twins, st)
			}
		}
	}
}

// shareable reports whether every capability of regs is a pointer, so that comparing two
// registrations' capabilities is comparing identities (an interface holding a value of a type
// with no == would panic on comparison).
func shareable(regs []ext.Registration) bool {
	for _, r := range regs {
		if r.Capability == nil || reflect.TypeOf(r.Capability).Kind() != reflect.Pointer {
			return false
		}
	}
	return true
}

// sameRegistrations reports whether a and b are the same registrations in the same order.
// Both are shareable.
func sameRegistrations(a, b []ext.Registration) bool {
	return slices.EqualFunc(a, b, func(x, y ext.Registration) bool {
		return x.Capability == y.Capability && x.Level == y.Level && x.Slot == y.Slot && x.Origin == y.Origin
	})
}

// Forget drops scope's view (when its session ends).
func (c *Cache) Forget(scope ext.Scope) {
	c.mu.Lock()
	delete(c.entries, scope)
	c.mu.Unlock()
}

// ForgetSession drops the views of every scope of session id (the session's own, its
// agents' and turns'): what a gateway calls when a session ends, since agent and turn scopes
// are many and short-lived.
func (c *Cache) ForgetSession(id string) {
	c.mu.Lock()
	for s := range c.entries {
		if s.SessionID == id {
			delete(c.entries, s)
		}
	}
	c.mu.Unlock()
}

// Len returns how many scopes have an entry.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

package view

import (
	"context"
	"fmt"
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
// Concurrent Gets of a stale scope compile it once. Views of scopes that see the same tools
// share one Tools list, and those that see the same commands one Commands list (views are
// immutable). A Cache is safe for concurrent use.
type Cache struct {
	reg   *ext.Registry
	retry time.Duration
	opts  *Options

	mu      sync.Mutex
	entries map[ext.Scope]*cacheEntry
	tools   listSets[Tool]    // the tool lists of recent views, shared by scopes that see the same tools
	cmds    listSets[Command] // their command lists, the same way
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
	c := &Cache{reg: reg, retry: DefaultRetryProblems, entries: make(map[ext.Scope]*cacheEntry)}
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
	v, err := Compile(ctx, c.reg, scope, c.opts)
	if err != nil {
		return nil, err
	}
	c.tools.share(&v.Tools, &v.tools, sameTools)
	c.cmds.share(&v.Commands, &v.commands, sameCommands)
	e.view, e.stamp, e.at = v, stamp, time.Now()
	return v, nil
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

package mcpcap

import (
	"context"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A server keeps resource subscriptions per session, and Caps sharing a pooled connection share
// its session: one Cap's unsubscribe must not end another Cap's subscription to the same URI.
// Holders are therefore counted per session across every Cap (sessionSubs): the first holder
// subscribes upstream, the last one unsubscribes. Each Cap keeps its own holds (Cap.subs, on
// the session Cap.subsOn) to move them to a new session on reconnect and give them back on
// Close.

// sessionSubs counts the holders of each subscribed URI of one client session.
type sessionSubs struct {
	mu     sync.Mutex // held across the upstream request, so upstream follows the counts
	counts map[string]int
	gone   bool // removed from subRegistry: look the session up again
}

var subRegistry struct {
	mu sync.Mutex
	m  map[*mcp.ClientSession]*sessionSubs
}

// lockSessionSubs returns cs's counts, locked; create makes them when there are none (else
// nil is returned).
func lockSessionSubs(cs *mcp.ClientSession, create bool) *sessionSubs {
	for {
		subRegistry.mu.Lock()
		s := subRegistry.m[cs]
		if s == nil && create {
			if subRegistry.m == nil {
				subRegistry.m = make(map[*mcp.ClientSession]*sessionSubs)
			}
			s = &sessionSubs{counts: make(map[string]int)}
			subRegistry.m[cs] = s
		}
		subRegistry.mu.Unlock()
		if s == nil {
			return nil
		}
		s.mu.Lock()
		if !s.gone {
			return s
		}
		s.mu.Unlock()
	}
}

// unlock releases s, dropping it from the registry when it counts nothing.
func (s *sessionSubs) unlock(cs *mcp.ClientSession) {
	if len(s.counts) == 0 {
		subRegistry.mu.Lock()
		delete(subRegistry.m, cs)
		subRegistry.mu.Unlock()
		s.gone = true
	}
	s.mu.Unlock()
}

// holdSub adds n holders of uri on cs, subscribing upstream when it had none. On error nothing
// is added.
func holdSub(ctx context.Context, cs *mcp.ClientSession, uri string, n int) error {
	s := lockSessionSubs(cs, true)
	defer s.unlock(cs)
	if s.counts[uri] == 0 {
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			return err
		}
	}
	s.counts[uri] += n
	return nil
}

// releaseSub removes n holders of uri from cs. When none is left and tell is set, the server
// is told (tell is false for a session known to be gone). The count drops even if telling
// fails.
func releaseSub(ctx context.Context, cs *mcp.ClientSession, uri string, n int, tell bool) error {
	s := lockSessionSubs(cs, false)
	if s == nil {
		return nil
	}
	defer s.unlock(cs)
	if s.counts[uri] -= n; s.counts[uri] > 0 {
		return nil
	}
	delete(s.counts, uri)
	if !tell {
		return nil
	}
	return cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri})
}

// SubscribeResource asks the server for resources/updated notifications about uri (MCP
// resources/subscribe); each arrives as a resources_changed event with SourceURI set.
// Subscriptions are counted: each one is undone by one UnsubscribeResource, and the server is
// told only when the last holder of uri on its session (across Caps sharing a pooled
// connection) lets go. They are made again on every reconnect and given back by Close. A
// server without subscription support answers with an error.
func (c *Cap) SubscribeResource(ctx context.Context, uri string) error {
	if c.isClosed() {
		return c.errClosed()
	}
	cn, err := c.ensure(ctx)
	if err != nil {
		return err
	}
	if caps := serverCaps(cn); caps != nil && (caps.Resources == nil || !caps.Resources.Subscribe) {
		return fmt.Errorf("mcp server %q: subscribe %s: the server does not support resource subscriptions", c.cfg.Name, uri)
	}
	c.subMu.Lock()
	defer c.subMu.Unlock()
	if c.isClosed() {
		return c.errClosed() // Close has given the holds back already
	}
	c.moveSubsLocked(ctx, cn.session)
	if err := holdSub(ctx, cn.session, uri, 1); err != nil {
		c.noteCallError(cn, err)
		return fmt.Errorf("mcp server %q: subscribe %s: %w", c.cfg.Name, uri, err)
	}
	if c.subs == nil {
		c.subs = make(map[string]int)
	}
	c.subs[uri]++
	c.subsOn = cn.session
	return nil
}

// UnsubscribeResource undoes one SubscribeResource of uri. The server is told once no holder of
// uri is left on its session; a URI not subscribed is no error.
func (c *Cap) UnsubscribeResource(ctx context.Context, uri string) error {
	if c.isClosed() {
		return c.errClosed()
	}
	c.subMu.Lock()
	defer c.subMu.Unlock()
	if c.subs[uri] == 0 {
		return nil
	}
	if c.subs[uri]--; c.subs[uri] == 0 {
		delete(c.subs, uri)
	}
	cs := c.subsOn
	cn := c.cur.Load()
	live := cn != nil && !cn.dead.Load() && cn.session == cs // else the session that held it is gone
	if err := releaseSub(ctx, cs, uri, 1, live); err != nil {
		return fmt.Errorf("mcp server %q: unsubscribe %s: %w", c.cfg.Name, uri, err)
	}
	return nil
}

// resubscribe moves the Cap's subscriptions to the session of a new connection.
func (c *Cap) resubscribe(ctx context.Context, cs *mcp.ClientSession) {
	c.subMu.Lock()
	defer c.subMu.Unlock()
	c.moveSubsLocked(ctx, cs)
}

// moveSubsLocked moves the Cap's holds from the session they are on to cs, telling the old
// session's server when it is left with no holder (best effort: it is usually gone). A URI the
// new server refuses is dropped, with a warning.
func (c *Cap) moveSubsLocked(ctx context.Context, cs *mcp.ClientSession) {
	old := c.subsOn
	if old == cs || len(c.subs) == 0 {
		c.subsOn = cs
		return
	}
	for uri, n := range c.subs {
		_ = releaseSub(ctx, old, uri, n, true)
		if err := holdSub(ctx, cs, uri, n); err != nil {
			c.log.Warn("resubscribe failed; subscription dropped", "uri", uri, "err", err)
			delete(c.subs, uri)
		}
	}
	c.subsOn = cs
}

// releaseSubs gives back every hold of the Cap (Close), telling the server about each URI
// that no other Cap on the session holds, within ctx.
func (c *Cap) releaseSubs(ctx context.Context) {
	c.subMu.Lock()
	defer c.subMu.Unlock()
	for uri, n := range c.subs {
		_ = releaseSub(ctx, c.subsOn, uri, n, true)
	}
	c.subs, c.subsOn = nil, nil
}

package mcpcap

import (
	"context"
	"fmt"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SubscribeResource asks the server for resources/updated notifications about uri (MCP
// resources/subscribe); each arrives as a resources_changed event with SourceURI set. The
// subscription is remembered and made again on every reconnect. A server without
// subscription support answers with an error.
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
	if err := cn.session.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
		c.noteCallError(cn, err)
		return fmt.Errorf("mcp server %q: subscribe %s: %w", c.cfg.Name, uri, err)
	}
	c.mu.Lock()
	if c.subs == nil {
		c.subs = make(map[string]int)
	}
	c.subs[uri]++
	c.mu.Unlock()
	return nil
}

// UnsubscribeResource undoes one SubscribeResource of uri; the server is told once the last
// one is undone.
func (c *Cap) UnsubscribeResource(ctx context.Context, uri string) error {
	if c.isClosed() {
		return c.errClosed()
	}
	c.mu.Lock()
	n := c.subs[uri]
	if n > 1 {
		c.subs[uri] = n - 1
		c.mu.Unlock()
		return nil
	}
	delete(c.subs, uri)
	c.mu.Unlock()
	if n == 0 {
		return nil
	}
	cn := c.cur.Load()
	if cn == nil || cn.dead.Load() {
		return nil // the server session that held it is gone
	}
	if err := cn.session.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}); err != nil {
		return fmt.Errorf("mcp server %q: unsubscribe %s: %w", c.cfg.Name, uri, err)
	}
	return nil
}

// subscribedLocked lists the subscribed URIs, sorted.
func (c *Cap) subscribedLocked() []string {
	out := make([]string, 0, len(c.subs))
	for uri := range c.subs {
		out = append(out, uri)
	}
	slices.Sort(out)
	return out
}

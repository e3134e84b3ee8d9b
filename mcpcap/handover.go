package mcpcap

import (
	"context"
	"fmt"
)

// calls counts a Cap's tool calls in flight and names the Cap that takes its new ones once it
// is being replaced (HandOver). Guarded by Cap.mu.
type calls struct {
	inFlight  int
	successor *Cap
	drained   chan struct{} // closed when inFlight drops to zero; made by Drain
}

// HandOver makes next take c's new tool calls: from its return, CallTool and CallToolRaw on c
// are made on next, while the calls already in flight on c go on on c's connection. A reload
// that replaces a server's declaration hands the old Cap's calls over to the new one, so a
// caller holding the old one (a view compiled before the reload) is answered by the new
// server, then Drains and Closes the old one. next must not be c; a second HandOver replaces
// the first.
func (c *Cap) HandOver(next *Cap) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls.successor = next
}

// Drain returns once no tool call is in flight on c, or an error wrapping ctx.Err() when ctx
// ends first. Calls started after a HandOver are next's and are not waited for; without a
// HandOver, new calls may keep c from draining.
func (c *Cap) Drain(ctx context.Context) error {
	c.mu.Lock()
	if c.calls.inFlight == 0 {
		c.mu.Unlock()
		return nil
	}
	if c.calls.drained == nil {
		c.calls.drained = make(chan struct{})
	}
	drained := c.calls.drained
	n := c.calls.inFlight
	c.mu.Unlock()
	select {
	case <-drained:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("mcp server %q: drain: %d calls still in flight: %w", c.cfg.Name, n, ctx.Err())
	}
}

// beginCall counts a tool call in flight on c, which endCall ends, and returns nil; or, once
// c has handed over, the Cap to make the call on instead (and counts nothing).
func (c *Cap) beginCall() (next *Cap) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s := c.calls.successor; s != nil {
		return s
	}
	c.calls.inFlight++
	return nil
}

// endCall ends a call beginCall counted.
func (c *Cap) endCall() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls.inFlight--
	if c.calls.inFlight == 0 && c.calls.drained != nil {
		close(c.calls.drained)
		c.calls.drained = nil
	}
}

package mcpcap

import (
	"maps"
	"slices"

	"github.com/agentpool/agentpool/ext"
)

// Guard checks each tools listing of a server against the definitions the user approved
// (package pin implements it; the host injects it with WithGuard). The Cap owns the Guard it
// is given and closes it with itself.
type Guard interface {
	// Tools returns the tools of upstream (named as the server names them) to serve and, by
	// the server's name, the error a call to each one kept out gets.
	Tools(upstream []ext.ToolEntry) (serve []ext.ToolEntry, blocked map[string]error)
	// Close releases the guard; it is idempotent.
	Close() error
}

// WithGuard makes the Cap check every tools listing of its server with g: what g keeps out is
// neither listed nor callable, and a call to it fails with g's error (BlockedTool). Static
// tools (Lazy) are the user's own declaration and are not checked.
func WithGuard(g Guard) Option {
	return func(o *options) { o.guard = g }
}

var _ ext.ToolBlocker = (*Cap)(nil)

// BlockedTool returns the error a call to the tool name (as Tools would name it) gets while
// the Cap's Guard keeps it out of the last listing, or nil.
func (c *Cap) BlockedTool(name string) error {
	if ts := c.tools.Load(); ts != nil {
		return ts.blocked[name]
	}
	return nil
}

// BlockedTools returns the names (as Tools would name them) of the tools the Cap's Guard
// kept out of the last listing, sorted.
func (c *Cap) BlockedTools() []string {
	if ts := c.tools.Load(); ts != nil {
		return slices.Sorted(maps.Keys(ts.blocked))
	}
	return nil
}

// Recheck lists the server's tools again at the next access and emits tools_changed, as a
// tools list_changed of the server does: the Guard's approvals changed.
func (c *Cap) Recheck() {
	if c.isClosed() {
		return
	}
	c.staleTools.Store(true)
	c.emitToolsChanged()
}

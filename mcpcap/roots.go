package mcpcap

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/ext"
)

var _ ext.RootsWatcher = (*Cap)(nil)

// RootsChanged tells the server that its client's roots changed
// (notifications/roots/list_changed). A Cap not connected tells nothing: its server asks for
// roots when it starts. Neither is an injected session (no pooled connection), nor a legacy
// SSE server: the go-sdk sends this notification to every session of an mcp.Client at once.
func (c *Cap) RootsChanged(ctx context.Context) error {
	cn := c.cur.Load()
	if cn == nil || cn.dead.Load() || cn.lease == nil {
		return nil
	}
	err := cn.lease.Notify(ctx, "notifications/roots/list_changed", nil)
	if errors.Is(err, connpool.ErrNoRaw) {
		return nil // a legacy SSE server: the go-sdk offers no per-session notification
	}
	if err != nil {
		return fmt.Errorf("mcp server %q: roots changed: %w", c.cfg.Name, err)
	}
	return nil
}

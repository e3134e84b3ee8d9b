package mcpcap

import (
	"context"
	"fmt"
	"reflect"
	"time"

	"github.com/agentpool/agentpool/ext"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolSet is an immutable snapshot of the tools the Cap serves.
type toolSet struct {
	entries []ext.ToolEntry      // as served: filtered and prefixed
	byName  map[string]*toolInfo // served name → info
	static  bool                 // from Config.Tools or the manifest, not the live server
	cached  time.Time            // when the server listed them, for tools from the manifest
	blocked map[string]error     // served name → why the Guard keeps it out
}

type toolInfo struct {
	upstream string // the server's name for the tool
	safe     bool   // readOnlyHint or idempotentHint: a lost call may be repeated
	cached   bool   // listed from the manifest: the live listing decides at the call
}

// served returns the name the Cap serves the server's tool name under: with its Prefix.
func (c *Cap) served(name string) string {
	if c.cfg.Prefix != nil {
		return *c.cfg.Prefix + name
	}
	return name
}

func staticTools(in []ext.ToolEntry) []ext.ToolEntry { return in }

// buildToolSet filters and prefixes upstream tools (named as the server names them).
func (c *Cap) buildToolSet(upstream []ext.ToolEntry, static bool) *toolSet {
	ts := &toolSet{byName: make(map[string]*toolInfo, len(upstream)), static: static}
	for _, t := range upstream {
		if !c.cfg.allowed(t.Name) {
			continue
		}
		info := &toolInfo{upstream: t.Name}
		if a := t.Annotations; a != nil {
			info.safe = a.ReadOnlyHint || a.IdempotentHint
		}
		t.Name = c.served(t.Name)
		if _, dup := ts.byName[t.Name]; dup {
			continue
		}
		ts.byName[t.Name] = info
		ts.entries = append(ts.entries, t)
	}
	return ts
}

// Tools returns the tools the Cap serves, filtered and prefixed. It connects on first use
// unless Lazy (then the static tools serve until the first call). A server that cannot be
// reached, or a degraded Cap, returns the error (the view leaves the Cap out and reports it).
// The returned slice is shared; callers must not modify it.
func (c *Cap) Tools(ctx context.Context) ([]ext.ToolEntry, error) {
	ts, err := c.toolSet(ctx)
	if err != nil {
		return nil, err
	}
	return ts.entries, nil
}

// toolSet returns a current snapshot, connecting and listing when needed.
func (c *Cap) toolSet(ctx context.Context) (*toolSet, error) {
	if c.isClosed() {
		return nil, c.errClosed()
	}
	ts := c.tools.Load()
	live := c.cur.Load()
	if ts == nil && live == nil {
		ts = c.cachedTools()
	}
	if ts != nil && ts.static && live == nil {
		return ts, nil // lazy: static or cached tools until the first call connects
	}
	if ts != nil && !ts.static && live != nil && !live.dead.Load() && !c.staleTools.Load() {
		return ts, nil
	}
	cn, err := c.ensure(ctx)
	if err != nil {
		return nil, err
	}
	ts = c.tools.Load()
	if ts != nil && !ts.static && !c.staleTools.Load() {
		return ts, nil
	}
	if err := c.refreshTools(ctx, cn, ts, false); err != nil {
		return nil, err
	}
	return c.tools.Load(), nil
}

// refreshTools lists the server's tools on cn and stores them, emitting tools_changed when
// the served list differs from prev (or always when recovering from degraded).
func (c *Cap) refreshTools(ctx context.Context, cn *conn, prev *toolSet, force bool) error {
	c.staleTools.Store(false)
	var upstream []ext.ToolEntry
	err := paginate(func(cursor string) (string, error) {
		res, err := cn.session.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			return "", err
		}
		for _, t := range res.Tools {
			if t != nil {
				upstream = append(upstream, toolEntry(t))
			}
		}
		return res.NextCursor, nil
	})
	if err != nil {
		c.staleTools.Store(true)
		return fmt.Errorf("mcp server %q: tools/list: %w", c.cfg.Name, err)
	}
	if c.manifests != nil {
		c.manifests.ListedTools(upstream)
	}
	var blocked map[string]error
	if c.guard != nil {
		upstream, blocked = c.guard.Tools(upstream)
	}
	ts := c.buildToolSet(upstream, false)
	ts.blocked = c.servedBlocked(blocked)
	c.tools.Store(ts)
	if force || (prev != nil && !reflect.DeepEqual(prev.entries, ts.entries)) {
		c.emitToolsChanged()
	}
	return nil
}

// servedBlocked is blocked (by the server's names) by the names the Cap serves, less those
// its filters leave out anyway; nil when none.
func (c *Cap) servedBlocked(blocked map[string]error) map[string]error {
	var out map[string]error
	for name, err := range blocked {
		if c.cfg.allowed(name) {
			if out == nil {
				out = map[string]error{}
			}
			out[c.served(name)] = err
		}
	}
	return out
}

func (c *Cap) emitToolsChanged() { c.emit(ext.ToolsChanged, "") }

// noRetryReason says why a call that may have reached the server must not be repeated, or ""
// when it may.
func (c *Cap) noRetryReason(info *toolInfo) string {
	switch c.cfg.Retry.Calls {
	case CallsAlways:
		return ""
	case CallsNever:
		return "retry.calls is \"never\""
	}
	if info.safe {
		return ""
	}
	return "the tool is not read-only or idempotent"
}

func (c *Cap) lookupTool(ctx context.Context, name string) (*toolInfo, error) {
	if ts := c.tools.Load(); ts != nil && !c.staleTools.Load() {
		if info := ts.byName[name]; info != nil {
			return info, nil
		}
	}
	ts, err := c.toolSet(ctx)
	if err != nil {
		return nil, err
	}
	return c.toolIn(ts, name)
}

// toolIn returns the tool served as name in ts, or why there is none.
func (c *Cap) toolIn(ts *toolSet, name string) (*toolInfo, error) {
	if info := ts.byName[name]; info != nil {
		return info, nil
	}
	if err := ts.blocked[name]; err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("mcp server %q: tool %q: %w", c.cfg.Name, name, ext.ErrNotFound)
}

package mcpcap

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/agentpool/agentpool/connpool"
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

// CallTool calls a tool by the name Tools served. The call is bounded by Config.Timeout and
// by ctx (connecting first, if needed, by the startup timeout and ctx); cancelling ctx cancels it upstream (notifications/cancelled) and leaves the
// connection up. A call cut off by a lost connection is repeated on a new connection only if
// it never reached the server, or the tool is annotated readOnlyHint or idempotentHint, or
// Retry.Calls is "always" (never when "never"); otherwise the error wraps ErrConnectionLost.
// A tool-level failure is a result with IsError set, not an error.
//
// call.Meta is sent as the request's _meta, less any progressToken. When call.Progress is set,
// the Cap sends a progress token of its own (unique across every Cap, so callers sharing a
// pooled connection never see each other's progress) and hands the server's progress
// notifications for it to call.Progress, in order; on a pooled connection all that the server
// sent before its result have been handed over when CallTool returns. Progress only increases
// across a retry on a new connection: the retried call's values (and total) are offset by the
// last value handed over, and any not above it is dropped.
func (c *Cap) CallTool(ctx context.Context, call *ext.ToolCall) (*ext.ToolResult, error) {
	next, end := c.beginCall()
	if next != nil {
		return next.CallTool(ctx, call)
	}
	defer end()
	var out *ext.ToolResult
	err := c.callTool(ctx, call, func(ctx context.Context, deadline time.Time, cn *conn, params *mcp.CallToolParams) error {
		return until(ctx, deadline, func(ctx context.Context) error {
			res, err := cn.session.CallTool(ctx, params)
			if err == nil {
				out = toolResult(res)
			}
			return err
		})
	})
	return out, err
}

// until runs f with ctx bounded by deadline, and returns context.DeadlineExceeded when f
// failed because the deadline passed.
func until(ctx context.Context, deadline time.Time, f func(ctx context.Context) error) error {
	dctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	err := f(dctx)
	if err != nil && ctx.Err() == nil && errors.Is(dctx.Err(), context.DeadlineExceeded) {
		return context.DeadlineExceeded
	}
	return err
}

// CallToolRaw is CallTool returning the result as the server wrote it (ext.RawToolCaller):
// on a pooled stdio or streamable HTTP connection the call is passed through
// (connpool.Conn.CallRaw), neither its params nor its result decoded by the go-sdk; elsewhere
// (an injected session, a legacy SSE server) it is made by the session and the result encoded. Timeouts, cancellation and the retry rules are CallTool's.
func (c *Cap) CallToolRaw(ctx context.Context, call *ext.ToolCall) (json.RawMessage, error) {
	next, end := c.beginCall()
	if next != nil {
		return next.CallToolRaw(ctx, call)
	}
	defer end()
	var out json.RawMessage
	err := c.callTool(ctx, call, func(ctx context.Context, deadline time.Time, cn *conn, params *mcp.CallToolParams) error {
		if cn.lease != nil {
			data, err := rawParams(params)
			if err != nil {
				return err
			}
			res, err := cn.lease.CallRawUntil(ctx, deadline, "tools/call", data)
			if !errors.Is(err, connpool.ErrNoRaw) {
				out = res
				return err
			}
		}
		return until(ctx, deadline, func(ctx context.Context) error {
			res, err := cn.session.CallTool(ctx, params)
			if err == nil {
				out, err = json.Marshal(res)
			}
			return err
		})
	})
	return out, err
}

// rawParams encodes a tools/call's params: by hand in the common case (no _meta, arguments
// already JSON), which is the hot path's, else with encoding/json.
func rawParams(p *mcp.CallToolParams) ([]byte, error) {
	args, ok := p.Arguments.(json.RawMessage)
	if p.Meta != nil || !ok && p.Arguments != nil || len(args) > 0 && !json.Valid(args) {
		return json.Marshal(p) // (invalid arguments: its error)
	}
	if bytes.ContainsAny(args, "\r\n") {
		// One message is one line on stdio: whitespace of pretty-printed arguments goes.
		var c bytes.Buffer
		if err := json.Compact(&c, args); err != nil {
			return nil, err
		}
		args = c.Bytes()
	}
	b := make([]byte, 0, len(p.Name)+len(args)+24)
	b = append(b, `{"name":`...)
	if strings.ContainsAny(p.Name, `<>&"\\`) || !isPrint(p.Name) {
		name, err := json.Marshal(p.Name) // escapes as json.Marshal of the params would
		if err != nil {
			return nil, err
		}
		b = append(b, name...)
	} else {
		b = append(append(append(b, '"'), p.Name...), '"')
	}
	if len(args) > 0 {
		b = append(b, `,"arguments":`...)
		b = append(b, args...)
	}
	return append(b, '}'), nil
}

// isPrint reports whether s is printable ASCII.
func isPrint(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// callTool makes a call with do, on a connection, with CallTool's timeouts, progress and
// retries. do bounds the call by deadline as by ctx, and returns context.DeadlineExceeded once
// the deadline has passed: Config.Timeout is a deadline handed down rather than a context
// made per call, which costs a passed-through call more than the rest of this side's work.
func (c *Cap) callTool(ctx context.Context, call *ext.ToolCall, do func(ctx context.Context, deadline time.Time, cn *conn, params *mcp.CallToolParams) error) error {
	name, args := call.Name, call.Arguments
	info, err := c.lookupTool(ctx, name)
	if err != nil {
		return err
	}
	// The start is bounded by the startup timeout (Config.Server.StartupTimeout), not the call's:
	// a server slow to start (a first npx download) is not cut off by a short call timeout.
	cn, err := c.ensure(ctx)
	if err != nil {
		return err
	}
	if info.cached {
		// The start brought the live listing, checked by the Guard: it decides, not the cache.
		ts, err := c.toolSet(ctx)
		if err != nil {
			return err
		}
		if info, err = c.toolIn(ts, name); err != nil {
			return err
		}
	}
	deadline := time.Now().Add(c.cfg.Timeout)
	params := &mcp.CallToolParams{Name: info.upstream}
	if len(args) > 0 {
		params.Arguments = args
	}
	if len(call.Meta) > 0 || call.Progress != nil {
		params.Meta = metaMap(call.Meta)
		delete(params.Meta, "progressToken")
	}
	var mono *monotonicProgress
	if call.Progress != nil {
		mono = &monotonicProgress{sink: call.Progress}
		token := c.progress.add(mono.deliver)
		defer c.progress.remove(token)
		params.Meta["progressToken"] = token
	}
	bounded := false // ctx carries the deadline (for the reconnects of a retry)
	for attempt := 1; ; attempt++ {
		done := track(ctx, cn)
		err := do(ctx, deadline, cn, params)
		done()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("mcp server %q: call %q: %w", c.cfg.Name, name, context.Cause(ctx))
		}
		if errors.Is(err, context.DeadlineExceeded) && !time.Now().Before(deadline) {
			return fmt.Errorf("mcp server %q: call %q: %w", c.cfg.Name, name, context.DeadlineExceeded)
		}
		lost, sent := connectionLost(err, cn)
		if !lost {
			return fmt.Errorf("mcp server %q: call %q: %w", c.cfg.Name, name, err)
		}
		c.drop(cn, err)
		if !bounded {
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, deadline)
			defer cancel()
			bounded = true
		}
		if sent {
			if reason := c.noRetryReason(info); reason != "" {
				return fmt.Errorf("mcp server %q: %w during call %q; not retried: %s (%v)",
					c.cfg.Name, ErrConnectionLost, name, reason, err)
			}
		}
		if attempt >= c.cfg.Retry.Attempts {
			return fmt.Errorf("mcp server %q: %w during call %q; gave up after %d attempts (%v)",
				c.cfg.Name, ErrConnectionLost, name, attempt, err)
		}
		c.log.Info("retrying call on a new connection", "tool", name, "attempt", attempt+1, "err", err)
		if mono != nil {
			mono.retry()
		}
		if cn, err = c.ensure(ctx); err != nil {
			return fmt.Errorf("mcp server %q: %w during call %q; reconnect failed: %w", c.cfg.Name, ErrConnectionLost, name, err)
		}
		params = &mcp.CallToolParams{Meta: params.Meta, Name: info.upstream, Arguments: params.Arguments}
	}
}

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

package mcpcap

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/ext"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

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
	if next := c.beginCall(); next != nil {
		return next.CallTool(ctx, call)
	}
	defer c.endCall()
	_, out, err := c.callTool(ctx, call, false)
	return out, err
}

// CallToolRaw is CallTool returning the result as the server wrote it (ext.RawToolCaller):
// on a pooled stdio or streamable HTTP connection the call is passed through
// (connpool.Conn.CallRaw), neither its params nor its result decoded by the go-sdk; elsewhere
// (an injected session, a legacy SSE server) it is made by the session and the result encoded. Timeouts, cancellation and the retry rules are CallTool's.
func (c *Cap) CallToolRaw(ctx context.Context, call *ext.ToolCall) (json.RawMessage, error) {
	if next := c.beginCall(); next != nil {
		return next.CallToolRaw(ctx, call)
	}
	defer c.endCall()
	out, _, err := c.callTool(ctx, call, true)
	return out, err
}

// toolRequest is what a call sends the server: the tool's name there, the arguments, _meta.
type toolRequest struct {
	name string
	args json.RawMessage
	meta mcp.Meta
}

// params returns r as the go-sdk's params, new at each use (the session may change them).
func (r *toolRequest) params() *mcp.CallToolParams {
	p := &mcp.CallToolParams{Name: r.name, Meta: r.meta}
	if len(r.args) > 0 {
		p.Arguments = r.args
	}
	return p
}

// callTool makes a call on a connection, with CallTool's timeouts, progress and retries: its
// result as the server wrote it when raw (CallToolRaw), else decoded (CallTool).
//
// Config.Timeout is a deadline handed down to the attempts rather than a context made per
// call, which would cost a passed-through call more than the rest of this side's work.
func (c *Cap) callTool(ctx context.Context, call *ext.ToolCall, raw bool) (data json.RawMessage, res *ext.ToolResult, err error) {
	name := call.Name
	info, err := c.lookupTool(ctx, name)
	if err != nil {
		return nil, nil, err
	}
	// The start is bounded by the startup timeout (Config.Server.StartupTimeout), not the call's:
	// a server slow to start (a first npx download) is not cut off by a short call timeout.
	cn, err := c.ensure(ctx)
	if err != nil {
		return nil, nil, err
	}
	if info.cached {
		// The start brought the live listing, checked by the Guard: it decides, not the cache.
		ts, err := c.toolSet(ctx)
		if err != nil {
			return nil, nil, err
		}
		if info, err = c.toolIn(ts, name); err != nil {
			return nil, nil, err
		}
	}
	deadline := time.Now().Add(c.cfg.Timeout)
	req := toolRequest{name: info.upstream, args: call.Arguments}
	if len(call.Meta) > 0 || call.Progress != nil {
		req.meta = metaMap(call.Meta)
		delete(req.meta, "progressToken")
	}
	var mono *monotonicProgress
	if call.Progress != nil {
		mono = &monotonicProgress{sink: call.Progress}
		token := c.progress.add(mono.deliver)
		defer c.progress.remove(token)
		req.meta["progressToken"] = token
	}
	bounded := false // ctx carries the deadline (for the reconnects of a retry)
	for attempt := 1; ; attempt++ {
		tr := track(ctx, cn)
		data, res, err = c.attempt(ctx, deadline, cn, &req, raw)
		tr.Done()
		if err == nil {
			return data, res, nil
		}
		if ctx.Err() != nil {
			return nil, nil, fmt.Errorf("mcp server %q: call %q: %w", c.cfg.Name, name, context.Cause(ctx))
		}
		if !time.Now().Before(deadline) { // as ctx.Err() of a context with the deadline
			return nil, nil, fmt.Errorf("mcp server %q: call %q: %w", c.cfg.Name, name, context.DeadlineExceeded)
		}
		lost, sent := connectionLost(err, cn)
		if !lost {
			return nil, nil, fmt.Errorf("mcp server %q: call %q: %w", c.cfg.Name, name, err)
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
				return nil, nil, fmt.Errorf("mcp server %q: %w during call %q; not retried: %s (%v)",
					c.cfg.Name, ErrConnectionLost, name, reason, err)
			}
		}
		if attempt >= c.cfg.Retry.Attempts {
			return nil, nil, fmt.Errorf("mcp server %q: %w during call %q; gave up after %d attempts (%v)",
				c.cfg.Name, ErrConnectionLost, name, attempt, err)
		}
		c.log.Info("retrying call on a new connection", "tool", name, "attempt", attempt+1, "err", err)
		if mono != nil {
			mono.retry()
		}
		if cn, err = c.ensure(ctx); err != nil {
			return nil, nil, fmt.Errorf("mcp server %q: %w during call %q; reconnect failed: %w", c.cfg.Name, ErrConnectionLost, name, err)
		}
	}
}

// attempt makes the call r once on cn, bounded by deadline as by ctx: passed through when raw
// and cn passes calls through (its result as the server wrote it), else by the session (the
// result encoded when raw). It returns context.DeadlineExceeded once the deadline has passed.
func (c *Cap) attempt(ctx context.Context, deadline time.Time, cn *conn, r *toolRequest, raw bool) (data json.RawMessage, res *ext.ToolResult, err error) {
	if raw && cn.lease != nil {
		buf := paramBufs.Get().(*[]byte)
		p, err := appendRawParams((*buf)[:0], r)
		if err == nil {
			data, err = cn.lease.CallRawUntil(ctx, deadline, "tools/call", p) // p not kept
		}
		if cap(p) <= 64<<10 {
			*buf = p[:0]
			paramBufs.Put(buf) // not one large call's buffer for good
		}
		if !errors.Is(err, connpool.ErrNoRaw) {
			return data, nil, err
		}
	}
	err = until(ctx, deadline, func(ctx context.Context) error {
		sres, err := cn.session.CallTool(ctx, r.params())
		if err != nil {
			return err
		}
		if raw {
			data, err = json.Marshal(sres)
		} else {
			res = toolResult(sres)
		}
		return err
	})
	return data, res, err
}

// paramBufs are the buffers passed-through calls encode their params in.
var paramBufs = sync.Pool{New: func() any { return new([]byte) }}

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

// appendRawParams appends the params of the tools/call r to b: by hand in the common case (no
// _meta, arguments valid JSON), which is the hot path's, else with encoding/json.
func appendRawParams(b []byte, r *toolRequest) ([]byte, error) {
	args := r.args
	if r.meta != nil || len(args) > 0 && !json.Valid(args) {
		p, err := json.Marshal(r.params()) // (invalid arguments: its error)
		return append(b, p...), err
	}
	if bytes.ContainsAny(args, "\r\n") {
		// One message is one line on stdio: whitespace of pretty-printed arguments goes.
		var c bytes.Buffer
		if err := json.Compact(&c, args); err != nil {
			return b, err
		}
		args = c.Bytes()
	}
	b = append(b, `{"name":`...)
	if strings.ContainsAny(r.name, `<>&"\\`) || !isPrint(r.name) {
		name, err := json.Marshal(r.name) // escapes as json.Marshal of the params would
		if err != nil {
			return b, err
		}
		b = append(b, name...)
	} else {
		b = append(append(append(b, '"'), r.name...), '"')
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

package connpool

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentpool/agentpool/internal/wire"
	"github.com/agentpool/agentpool/sandbox"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Conn is one lease on a shared client, returned by Pool.Get. Its methods are
// safe for concurrent use. Give it back with Pool.Release.
type Conn struct {
	c        *client
	released atomic.Bool

	mu   sync.Mutex
	obs  map[uint64]struct{} // observers registered through this lease
	stop bool
}

// Session returns the shared MCP client session. It is safe for concurrent
// calls by every lease. Callers must not Close it: the pool owns it. After the
// server dies, calls on it fail with an error (wrapping io.EOF or
// mcp.ErrConnectionClosed), which CallError marks ErrLost or ErrNotSent; Get a
// new Conn to reach a new process.
func (c *Conn) Session() *mcp.ClientSession { return c.c.session }

// CallRaw sends a request of method with params (a JSON object) and returns its result as
// the server wrote it, for a gateway that passes a call through without decoding it. It
// shares the session's connection (and its ordering: tapped notifications the server sent
// before the response reach the observers first). A JSON-RPC error answer is a
// *jsonrpc.Error; a connection closed before the request was written is ErrNotSent (wrapping
// mcp.ErrConnectionClosed), one lost before the answer ErrLost (wrapping io.EOF when it
// ended), as CallError marks the session's calls; the end of ctx sends the server
// notifications/cancelled. Stdio and streamable HTTP
// connections pass calls through (lean.go, rawhttp.go); an SSE one returns ErrNoRaw: use
// Session. params is not kept: the caller may reuse it once CallRaw returns.
func (c *Conn) CallRaw(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	return c.CallRawUntil(ctx, time.Time{}, method, params)
}

// CallRawUntil is CallRaw bounded by deadline (none when zero) as it is by ctx: past the
// deadline the call ends as one whose ctx's deadline passed (context.DeadlineExceeded, and
// the server is sent notifications/cancelled), without a context made for it on stdio.
func (c *Conn) CallRawUntil(ctx context.Context, deadline time.Time, method string, params json.RawMessage) (json.RawMessage, error) {
	if c.c.ended.Load() {
		// The pool has ended the client (its process died, a request of it got no HTTP
		// response, the server forgot its session, Close): nothing is sent, as the session's
		// calls send nothing on a connection that is closing.
		return nil, notSent(fmt.Errorf("calling %q: %w", method, mcp.ErrConnectionClosed))
	}
	select {
	case <-c.c.closeReq:
		return nil, notSent(fmt.Errorf("calling %q: %w", method, mcp.ErrConnectionClosed))
	default:
	}
	switch {
	case c.c.lean != nil:
		return c.c.lean.call(ctx, deadline, method, params)
	case c.c.rawHTTP != nil:
		if !deadline.IsZero() {
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, deadline)
			defer cancel()
		}
		return c.c.rawHTTP.call(ctx, method, params)
	}
	return nil, ErrNoRaw
}

// Notify sends the server a notification of method with params (a JSON object, or nil) on
// the session's connection, for one the go-sdk session has no call for (a client's
// notifications/roots/list_changed is sent by the go-sdk to every session of an mcp.Client at
// once). A connection that cannot (legacy SSE) returns ErrNoRaw.
func (c *Conn) Notify(ctx context.Context, method string, params json.RawMessage) error {
	msg := wire.AppendNotification(nil, method, params)
	switch {
	case c.c.lean != nil:
		return c.c.lean.writeLine(msg)
	case c.c.rawHTTP != nil:
		resp, err := c.c.rawHTTP.post(ctx, msg)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			return fmt.Errorf("connpool: %s: HTTP %d", method, resp.StatusCode)
		}
		return nil
	}
	return ErrNoRaw
}

// Done returns a channel closed when the underlying session has ended (the
// server process exited or was killed, the connection dropped, or the client
// was closed by the pool) and, for stdio, its process group is dead.
func (c *Conn) Done() <-chan struct{} { return c.c.done }

// Err returns nil while the session is live, and after Done is closed an
// error wrapping ErrServerExited that says why it ended, including how the
// process exited and its stderr tail.
func (c *Conn) Err() error {
	select {
	case <-c.c.done:
		return c.c.err
	default:
		return nil
	}
}

// StderrTail returns the last bytes (up to Options.StderrBytes) the server
// wrote to stderr; "" for HTTP servers.
func (c *Conn) StderrTail() string {
	if c.c.proc == nil {
		return ""
	}
	return c.c.proc.stderr.String()
}

// PID returns the stdio server's pid, which is also its process group id;
// 0 for HTTP servers.
func (c *Conn) PID() int {
	if c.c.proc == nil {
		return 0
	}
	return c.c.proc.pid
}

// Sandbox returns what confines the stdio server (its Landlock ABI level, its network
// namespace, what the kernel lacked of a policy that was not required); nil for a server
// without a sandbox and for HTTP servers.
func (c *Conn) Sandbox() *sandbox.Launch {
	if c.c.proc == nil {
		return nil
	}
	return c.c.proc.sandbox
}

// Observe registers fn to receive every notification the server sends while
// this lease is held. fn is called on the session's receive goroutine and
// must not block (hand off to a channel or goroutine). The returned stop is
// idempotent; Release stops every observer of the lease. Neither waits for a
// call of fn already running on another goroutine: one notification may still
// arrive after stop or Release returns, so fn must tolerate a closed owner.
func (c *Conn) Observe(fn func(Notification)) (stop func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stop {
		return func() {}
	}
	id := c.c.addObserver(fn)
	if c.obs == nil {
		c.obs = make(map[uint64]struct{})
	}
	c.obs[id] = struct{}{}
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			delete(c.obs, id)
			c.mu.Unlock()
			c.c.removeObserver(id)
		})
	}
}

// stopObservers removes every observer of this lease and refuses new ones.
func (c *Conn) stopObservers() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stop = true
	for id := range c.obs {
		c.c.removeObserver(id)
	}
	c.obs = nil
}

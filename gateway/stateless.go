package gateway

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Stateless mode (Options.Stateless; server.stateless in the config) serves every request on
// its own, so that any replica behind a load balancer may answer any request: no
// Mcp-Session-Id is given or read, and each POST is served by the go-sdk's stateless handler
// with a temporary go-sdk session over one mcp.Server shared by every request. That server is
// the base scope's (the pool's or the agent's), filled from the view cache once and kept
// current from the registry's change stream like a session's: a request compiles nothing, it
// routes through the view the server already holds. A tools/call that can be passed through
// (passthrough.go) is, as in a session.
//
// What needs a session does not work, and is said so rather than half done:
//   - server-to-client requests (sampling, elicitation, roots): the go-sdk rejects them on a
//     stateless connection; an upstream that asks gets an error naming stateless mode;
//   - list_changed notifications (not declared: there is no stream to send them on; clients
//     see changes at their next listing), resources/subscribe and logging/setLevel (refused
//     with -32000 naming stateless mode), upstream log messages (not forwarded);
//   - GET (the standalone SSE stream) and DELETE: 405, from the go-sdk;
//   - session-scoped servers, and the servers of skills (which run in a session's pool
//     partition): OpenSession is never called. config refuses server.stateless with a
//     server of scope: session; a skill's own servers are simply not started.
//
// Progress notifications of a call still reach the client, on the call's own stream. A
// notifications/cancelled cancels nothing: request ids are each client's own, and the
// notification may reach another replica; a client cancels a call by dropping its request.

// errStateless is the message of what stateless mode cannot do.
const errStateless = "not available: agentpool serves statelessly (server.stateless), with no session to "

// statelessRefused are the requests a stateless server refuses: each needs a session.
var statelessRefused = map[string]string{
	"logging/setLevel":      "keep a log level",
	"resources/subscribe":   "hold a subscription",
	"resources/unsubscribe": "hold a subscription",
}

// shared returns the server of stateless mode, opening it at the first request (its view's
// first compile starts the upstream servers, which New must not do). A failure is returned
// to the request and tried again at the next.
//
// After Close it returns ErrClosed, whether or not it was opened: the closed server's change
// stream is stopped, and it answered from a stale view (TestStatelessAfterClose).
func (g *Gateway) shared(ctx context.Context) (*session, error) {
	g.sharedMu.Lock()
	defer g.sharedMu.Unlock()
	g.mu.Lock()
	closed := g.closed
	g.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	if g.sharedSess != nil {
		return g.sharedSess, nil
	}
	s := &session{g: g, scope: g.opts.Scope, stateless: true, ended: make(chan struct{}), ready: make(chan struct{})}
	s.connLife, s.connGone = context.WithCancel(context.Background())
	s.out.onDrop = func(n int) {
		g.log.Warn("notifications dropped: a stateless client does not keep up", "queued", maxOutbox, "dropped", n)
	}
	// Close makes the first compile give up, as it does a session's opening: Close waits for
	// sharedMu, and an upstream may take its whole startup_timeout.
	ctx, cancelOpen := context.WithCancel(ctx)
	defer cancelOpen()
	defer context.AfterFunc(g.closing, cancelOpen)()
	wctx, cancel := context.WithCancel(context.Background())
	events := g.reg.Changes(wctx, s.scope) // before the first compile: no change is missed
	v, err := g.cache.Get(ctx, s.scope)
	if err != nil {
		cancel()
		s.connGone()
		if g.closing.Err() != nil {
			return nil, ErrClosed
		}
		return nil, fmt.Errorf("gateway: stateless %s: %w", s.scope, err)
	}
	for _, p := range v.Problems {
		g.log.Warn("left out of the view", "scope", s.scope.String(), "problem", p.String())
	}
	s.cancel = cancel
	s.server = mcp.NewServer(&mcp.Implementation{Name: g.opts.Name, Version: g.opts.Version}, &mcp.ServerOptions{
		Instructions: v.Instructions.Static,
		Capabilities: &mcp.ServerCapabilities{
			Tools:      &mcp.ToolCapabilities{},
			Prompts:    &mcp.PromptCapabilities{},
			Resources:  &mcp.ResourceCapabilities{},
			Extensions: map[string]any{SkillsExtension: map[string]any{}},
		},
		CompletionHandler:         s.complete,
		SupportedProtocolVersions: supportedVersions,
	})
	s.server.AddReceivingMiddleware(s.initialized, refuseStateless)
	s.server.AddSendingMiddleware(s.listChangedOnce)
	if err := s.addSkillMethods(); err != nil {
		cancel()
		s.connGone()
		return nil, fmt.Errorf("gateway: stateless %s: %w", s.scope, err)
	}
	s.apply(v)
	s.pass.ok.Store(true) // no log level, no client to ask: calls may pass through
	s.watchDone = make(chan struct{})
	g.wg.Add(1)
	go s.watch(wctx, events)
	g.sharedSess = s
	g.log.Debug("stateless server opened", "scope", s.scope.String())
	return s, nil
}

// closeShared stops the stateless server's change stream and its calls passed through. The
// scope is the base scope, which outlives the Gateway: nothing of the registry is closed.
func (g *Gateway) closeShared() {
	g.sharedMu.Lock()
	s := g.sharedSess
	g.sharedMu.Unlock()
	if s == nil {
		return
	}
	s.connGone()
	s.cancel()
	<-s.watchDone
	s.stopLogs() // watch observed the log sources; stateless mode forwards none
	s.out.close()
}

// refuseStateless answers the requests that need a session with an error naming stateless mode.
func refuseStateless(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if what, ok := statelessRefused[method]; ok {
			return nil, &jsonrpc.Error{Code: codeServerError, Message: method + ": " + errStateless + what}
		}
		return next(ctx, method, req)
	}
}

// statelessHandler is Handler in stateless mode: the same checks (Origin, token, body size,
// JSON-RPC errors for what the go-sdk answers in plain text), then the pass-through path or
// the go-sdk's stateless handler over the shared server.
func (g *Gateway) statelessHandler() http.Handler {
	sdk := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		s, _ := r.Context().Value(pendingKey{}).(*session)
		if s == nil {
			return nil
		}
		return s.server
	}, &mcp.StreamableHTTPOptions{
		Stateless:           true,
		Logger:              g.opts.Logger,
		MaxRequestBodyBytes: g.opts.MaxBodyBytes,
		// checkRequest has applied hostAllowed, which also passes Auth.Resource's host.
		DisableLocalhostProtection: g.opts.Auth != nil && g.opts.Auth.Resource != "",
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w = guardWrites(w)
		r, ok := g.checkRequest(w, r)
		if !ok {
			return
		}
		if r.Method != http.MethodPost {
			sdk.ServeHTTP(w, r) // 405: no GET stream, no session to DELETE
			return
		}
		body, ok := g.readBody(w, r)
		if !ok {
			return
		}
		env := decodeEnvelope(body)
		if id, code, msg := checkMessage(env); code != 0 {
			status := http.StatusOK
			if code == jsonrpc.CodeParseError {
				status = http.StatusBadRequest
			}
			writeRPCError(w, status, id, code, msg)
			return
		}
		s, err := g.shared(r.Context())
		if err != nil {
			id, _, _ := initializeIn(env)
			status, code := http.StatusInternalServerError, int64(jsonrpc.CodeInternalError)
			if errors.Is(err, ErrClosed) {
				status, code = http.StatusServiceUnavailable, codeServerError
			}
			g.log.Warn("stateless request refused", "err", err)
			writeRPCError(w, status, id, code, err.Error())
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if s.passThrough(w, r, env) {
			return
		}
		pw := &plainErrors{ResponseWriter: w}
		sdk.ServeHTTP(pw, r.WithContext(context.WithValue(r.Context(), pendingKey{}, s)))
		pw.finish(body)
	})
}

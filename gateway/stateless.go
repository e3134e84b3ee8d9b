package gateway

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/agentpool/agentpool/gateway/internal/heldbody"
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

// statelessServer serves a Gateway in stateless mode: the one server of the base scope that
// every request shares, opened at the first request, and the HTTP handler in front of it.
type statelessServer struct {
	g *Gateway

	mu sync.Mutex
	s  *session // the server; nil before the first request, or after a failed opening
}

// server returns the shared server, opening it at the first request (its view's first
// compile starts the upstream servers, which New must not do). A failure is returned to the
// request and tried again at the next. After Close it returns ErrClosed, whether or not it
// was opened: the closed server's change stream is stopped, and its view would be stale.
func (st *statelessServer) server(ctx context.Context) (*session, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	g := st.g
	g.mu.Lock()
	closed := g.closed
	g.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	if st.s != nil {
		return st.s, nil
	}
	s := &session{g: g, scope: g.opts.Scope, stateless: true, ended: make(chan struct{}), ready: make(chan struct{})}
	s.connLife, s.connGone = context.WithCancel(context.Background())
	s.out.onDrop = func(n int) {
		g.log.Warn("notifications dropped: a stateless client does not keep up", "queued", maxOutbox, "queued_bytes", maxOutboxBytes, "dropped", n)
	}
	// Close makes the first compile give up, as it does a session's opening: Close waits for
	// mu, and an upstream may take its whole startup_timeout.
	ctx, cancelOpen := context.WithCancel(ctx)
	defer cancelOpen()
	defer context.AfterFunc(g.closing, cancelOpen)()
	err := s.fill(ctx, mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{
			Tools:      &mcp.ToolCapabilities{},
			Prompts:    &mcp.PromptCapabilities{},
			Resources:  &mcp.ResourceCapabilities{},
			Extensions: map[string]any{SkillsExtension: map[string]any{}},
		},
	}, refuseStateless, s.endWithRequest) // each request's go-sdk session is temporary: nothing binds
	if err != nil {
		s.connGone()
		if g.closing.Err() != nil {
			return nil, ErrClosed
		}
		return nil, fmt.Errorf("gateway: stateless %s: %w", s.scope, err)
	}
	s.pass.ok.Store(true) // no log level, no client to ask: calls may pass through
	st.s = s
	g.log.Debug("stateless server opened", "scope", s.scope.String())
	return s, nil
}

// close stops the server's change stream and its calls, on either path (Close; the Gateway
// refuses every request from then on). The scope is the base scope, which outlives the
// Gateway: nothing of the registry is closed.
func (st *statelessServer) close() {
	st.mu.Lock()
	s := st.s
	st.mu.Unlock()
	if s == nil {
		return
	}
	s.connGone()
	s.stopWatch()
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

// requestKey carries a stateless request's own context to the go-sdk's handlers of its
// messages, whose contexts keep its values but not its end.
type requestKey struct{}

// handler is the Gateway's Handler in stateless mode: the same checks, then, for a POST, the
// pass-through path or the go-sdk's stateless handler over the shared server. Anything but
// a POST is the go-sdk's to refuse (405: no GET stream, no session to DELETE).
func (st *statelessServer) handler() http.Handler {
	g := st.g
	sdk := mcp.NewStreamableHTTPHandler(g.serverFor, g.sdkOptions(true)) // no session is looked up
	post := holdBody(g.opts.MaxBodyBytes)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st.post(w, r, sdk)
	}))
	return chain(guardedWrites, g.userChecks)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			sdk.ServeHTTP(w, r)
			return
		}
		post.ServeHTTP(w, r)
	}))
}

// post serves one POST, its body held (holdBody), on its own.
func (st *statelessServer) post(w http.ResponseWriter, r *http.Request, sdk http.Handler) {
	body := heldbody.Of(r)
	env := decodeEnvelope(body)
	if rpcRefused(w, env) || discoverRefused(w, env) {
		return
	}
	if env.batch && env.err == nil {
		if why := batchRefusal(batchVersion(r, env, nil), env.n); why != "" {
			writeRPCError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, why)
			return
		}
	}
	s, err := st.server(r.Context())
	if err != nil {
		id, _, _ := initializeIn(env)
		status, code := http.StatusInternalServerError, int64(jsonrpc.CodeInternalError)
		if errors.Is(err, ErrClosed) {
			status, code = http.StatusServiceUnavailable, codeServerError
		}
		st.g.log.Warn("stateless request refused", "err", err)
		writeRPCError(w, status, id, code, err.Error())
		return
	}
	var exchange inflight // a POST is its own exchange: the cap bounds its batch, not the replica
	a, ok := exchange.admitted(w, env, s, st.g.opts.MaxInflight)
	if !ok {
		return
	}
	defer a.release()
	if s.passThrough(w, r, env, &a) {
		return
	}
	ctx := context.WithValue(r.Context(), pendingKey{}, s)
	serveSDK(sdk, w, r.WithContext(context.WithValue(ctx, requestKey{}, r.Context())), body, a.take())
}

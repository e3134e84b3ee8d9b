package gateway

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentpool/agentpool/exposure"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/gateway/internal/mcpconv"
	"github.com/agentpool/agentpool/gateway/internal/rerun"
	"github.com/agentpool/agentpool/view"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// session is one MCP client session: its scope, its own mcp.Server (an mcp.Server sends
// list_changed to all of its sessions, so each client needs its own to see its own view) and
// what that server holds, and what it forwards (forward.go, logs.go, subscribe.go).
type session struct {
	g  *Gateway
	id string
	// user is the subject of the access token that opened the session (Options.Auth; ""
	// without): only that user's requests reach it (requireSessionUser).
	user   string
	scope  ext.Scope
	server *mcp.Server
	view   atomic.Pointer[view.View] // what handlers route through; replaced by apply
	exp    *exposure.Session         // which tools of the view are listed (Options.Tools)
	// stateless: the server statelessServer shares among every client, id "", never ended,
	// with no client to ask, no request id naming one call.
	stateless bool

	// The scope's changes (fill): watch tells updates, which runs update on a goroutine only
	// while there are changes to apply; retry asks it again while the view has Problems.
	watch   *ext.Watch
	updates *rerun.Runner
	retry   *time.Timer        // nil until the view has Problems; touched by fill, update, stopWatch
	cancel  context.CancelFunc // ends update's context (nil: never filled)
	ended   chan struct{}      // closed when end has finished

	mu      sync.Mutex
	state   state              // moved only by to
	ss      *mcp.ServerSession // bound at initialize; nil before
	flights map[any]flying     // capability → contexts of the calls in flight to it

	// connLife is done once the client's connection has ended (DELETE, idle timeout, the
	// transport closed, Close) or the session did: calls passed through end with it, and no
	// more are (passthrough.go), though the session's end may still be under way.
	connLife context.Context
	connGone context.CancelFunc

	applyMu sync.Mutex // one apply at a time; guards the sets below
	held    struct {
		tools, prompts, resources, templates *mcpconv.Set // key → fingerprint, shared (reconcile)
	}

	out      outbox            // forwarded notifications, in order
	sendNext mcp.MethodHandler // the server's sending chain below listChangedOnce

	posts posts // the POSTs the go-sdk serves, whose calls end with them (posts.go)

	ready     chan struct{} // closed once the client is initialized: it may be asked then
	readyOnce sync.Once
	asks      atomic.Bool // the client declared sampling or elicitation (set at initialize)

	pass passState // calls passed through without the go-sdk (passthrough.go)
	idle idleTimer // ends an HTTP session without requests (idle.go)

	logMu    sync.Mutex
	logLevel string                   // the level the client set; "" before
	logStops map[ext.LogSource]func() // the log sources observed

	subMu sync.Mutex
	subs  map[string]ext.ResourceSubscriber // subscribed URI → the capability holding it

	started time.Time    // when open began (the status page's age)
	calls   atomic.Int64 // tools/call requests answered, either path (the status page)
}

// state is where a session is in its life; it only moves forward, and only in to.
type state uint8

const (
	stateOpening state = iota // reserved while open fills it; Close leaves it to open
	stateOpen                 // admitted; initialize binds the connection; Close ends it
	stateClosing              // its end asked (idle, Close): the connection, bound or not yet, is closed
	stateClosed               // end has released it or is at it; ended is closed when done
)

// to moves s to next, and reports the connection bound and whether s moved: it does not
// when s is at next or past it already.
func (s *session) to(next state) (ss *mcp.ServerSession, moved bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state >= next {
		return s.ss, false
	}
	s.state = next
	return s.ss, true
}

// is reports whether s is in state st.
func (s *session) is(st state) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state == st
}

// open admits a session of id: OpenSession for it, its change stream, its view, and a
// server holding that view. The server is filled before any client connects to it, so the
// client's first listings see everything and no list_changed is sent for the initial set.
func (g *Gateway) open(ctx context.Context, id string) (_ *session, err error) {
	scope := g.opts.Scope
	scope.SessionID = id
	s := &session{g: g, id: id, scope: scope, ended: make(chan struct{}), ready: make(chan struct{}), started: time.Now()}
	if ti := TokenInfo(ctx); ti != nil {
		s.user = ti.UserID
	}
	s.connLife, s.connGone = context.WithCancel(context.Background())
	s.out.onDrop = func(n int) {
		g.log.Warn("notifications dropped: the client does not keep up", "session", id, "queued", maxOutbox, "queued_bytes", maxOutboxBytes, "dropped", n)
	}
	if err := g.reserve(s); err != nil {
		return nil, fmt.Errorf("gateway: session %s: %w", id, err)
	}
	defer func() {
		if err != nil {
			s.end()
		}
	}()
	// Close makes a session still opening give up (its servers may take OpenTimeout).
	ctx, cancelOpen := context.WithCancel(ctx)
	defer context.AfterFunc(g.closing, cancelOpen)()
	// The session's own servers start now, and may ask their client before any call.
	ctx = ext.WithClient(ctx, s.sessionCaller())
	if f := g.opts.OpenSession; f != nil {
		if err := f(ctx, id); err != nil {
			return nil, fmt.Errorf("gateway: open session %s: %w", id, err)
		}
	}
	if err := g.awaitOwn(ctx, scope); err != nil {
		return nil, fmt.Errorf("gateway: open session %s: %w", id, err)
	}
	err = s.fill(ctx, mcp.ServerOptions{
		GetSessionID:            func() string { return id },
		Capabilities:            sessionCapabilities,
		RootsListChangedHandler: s.rootsChanged,
		SubscribeHandler:        s.subscribe,
		UnsubscribeHandler:      s.unsubscribe,
	}, s.initialized, s.setLevel, s.endWithRequest)
	if err != nil {
		return nil, fmt.Errorf("gateway: session %s: %w", id, err)
	}
	if err := g.admit(s); err != nil {
		return nil, fmt.Errorf("gateway: session %s: %w", id, err)
	}
	g.log.Debug("session opened", "session", id, "scope", scope.String(), "user", s.user)
	return s, nil
}

// sessionCapabilities are what every session's server declares, whatever its first view holds:
// a prompt or resource may appear later, and a client only listens for list_changed of what was
// declared. One value for all: the go-sdk copies it before adding to it.
var sessionCapabilities = &mcp.ServerCapabilities{
	Tools:     &mcp.ToolCapabilities{ListChanged: true},
	Prompts:   &mcp.PromptCapabilities{ListChanged: true},
	Resources: &mcp.ResourceCapabilities{ListChanged: true, Subscribe: true},
	Logging:   &mcp.LoggingCapabilities{},
	// SEP-2640: skills/list and skills/get (skills.go); no resources/directory/read.
	Extensions: map[string]any{SkillsExtension: map[string]any{}},
}

// fill gives s its server, holding the scope's view, and keeps it current (update) until
// stopWatch. The changes are subscribed to before the first compile, so that no change
// between the two is missed. opts gets the view's instructions, completion and the versions
// supported; receiving runs after negotiate. On error nothing is left running.
func (s *session) fill(ctx context.Context, opts mcp.ServerOptions, receiving ...mcp.Middleware) error {
	g := s.g
	wctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	wctx = ext.WithClient(wctx, s.sessionCaller())
	s.updates = rerun.New(func() { s.update(wctx) }) // started once the server holds v
	s.watch = g.reg.Watch(s.scope, s.updates.Kick)
	v, err := g.cache.Get(ctx, s.scope)
	if err != nil {
		s.stopWatch()
		return err
	}
	for _, p := range v.Problems {
		g.log.Warn("left out of the view", "session", s.id, "scope", s.scope.String(), "problem", p.String())
	}
	opts.Instructions = v.Instructions.Static
	opts.CompletionHandler = s.complete
	// On every transport: over stdio the go-sdk would otherwise serve a request asking for a
	// newer version in its _meta (SEP-2575) under that version.
	opts.SupportedProtocolVersions = supportedVersions
	s.server = mcp.NewServer(&mcp.Implementation{Name: g.opts.Name, Version: g.opts.Version}, &opts)
	s.server.AddReceivingMiddleware(append([]mcp.Middleware{encodableErrors, negotiate, s.blockedCalls}, receiving...)...)
	s.server.AddSendingMiddleware(s.listChangedOnce)
	if err := s.addSkillMethods(); err != nil {
		s.stopWatch()
		return err
	}
	s.exp = exposure.NewSession(g.opts.Tools, g.catalog, s.stateless)
	s.apply(v)
	s.syncLogs(ctx)
	s.armRetry()
	s.updates.Start()
	return nil
}

// stopWatch stops following the scope's changes and returns once an update in progress has
// returned, so that none can put a view of a dead scope back in the cache.
func (s *session) stopWatch() {
	if s.cancel == nil {
		return
	}
	s.cancel()
	s.watch.Stop()
	s.updates.Close()
	if s.retry != nil {
		s.retry.Stop()
	}
}

// maxProtocolVersion is the newest MCP version the gateway agrees to: the last in which a
// server sends sampling, elicitation and roots requests to its client during a call, as the
// upstream servers do to agentpool (connpool.DefaultProtocolVersion). From 2026-07-28 those
// are embedded in results (SEP-2322), which the gateway does not translate.
const maxProtocolVersion = "2025-11-25"

// supportedVersions are the go-sdk's versions up to maxProtocolVersion.
var supportedVersions = slices.DeleteFunc(mcp.SupportedProtocolVersions(), func(v string) bool { return v > maxProtocolVersion })

// negotiate is the receiving middleware of every server the gateway builds: a client asking
// for a newer version than maxProtocolVersion is answered with that one (MCP version
// negotiation), and server/discover, the 2026-07-28 handshake, is refused so that a client
// falls back to initialize.
func negotiate(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "server/discover":
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "server/discover: not supported; use initialize (protocol " + maxProtocolVersion + ")"}
		case "initialize":
			if p, ok := req.GetParams().(*mcp.InitializeParams); ok && p != nil && p.ProtocolVersion > maxProtocolVersion {
				p.ProtocolVersion = maxProtocolVersion
			}
		}
		return next(ctx, method, req)
	}
}

// initialized binds the session to its go-sdk ServerSession once initialize succeeded, and
// marks it ready once the client says it is initialized.
func (s *session) initialized(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "initialize" {
			if p, ok := req.GetParams().(*mcp.InitializeParams); ok && p != nil {
				if c := p.Capabilities; c != nil && (c.Sampling != nil || c.Elicitation != nil) {
					s.asks.Store(true)
				}
			}
		}
		res, err := next(ctx, method, req)
		if method == "initialize" && err == nil {
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok {
				s.bind(ss)
			}
		}
		if method == "notifications/initialized" && err == nil && s.conn() != nil {
			s.readyOnce.Do(func() {
				close(s.ready)
				s.logMu.Lock()
				s.pass.ok.Store(!s.asks.Load() && s.logLevel == "")
				s.logMu.Unlock()
			})
		}
		return res, err
	}
}

// bind records ss as the session's connection and ends the session when ss ends (DELETE,
// idle timeout, the transport closed). It is idempotent.
func (s *session) bind(ss *mcp.ServerSession) {
	s.mu.Lock()
	if s.ss != nil {
		s.mu.Unlock()
		return
	}
	s.ss = ss
	closing := s.state >= stateClosing
	s.mu.Unlock()
	s.g.wg.Add(1)
	go func() {
		defer s.g.wg.Done()
		if closing {
			// Not in bind's caller, the initialize handler: Close waits for it.
			_ = ss.Close()
		}
		_ = ss.Wait()
		s.connGone()
		s.end()
	}()
}

// conn returns the client connection, or nil before initialize.
func (s *session) conn() *mcp.ServerSession {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ss
}

// close ends the session from the server's side: its connection is closed, which ends it.
// A session not yet bound is ended by whoever binds it (bind closes the connection) or,
// when none is bound, by its opener (serveNew, Serve), which still uses it.
func (s *session) close() {
	if ss, moved := s.to(stateClosing); moved && ss != nil {
		_ = ss.Close()
	}
}

// end releases everything of the session once: the change stream, the host's session
// (CloseSession), the registry's scope of the session, and its cached views. A second call
// waits for the first to finish.
func (s *session) end() {
	if _, moved := s.to(stateClosed); !moved {
		<-s.ended
		return
	}
	s.connGone()
	s.stopWatch()
	ctx, cancel := context.WithTimeout(context.Background(), s.g.opts.CloseTimeout)
	defer cancel()
	s.stopLogs()
	if n := s.out.close(); n > 0 {
		s.g.log.Warn("notifications dropped: the client did not keep up", "session", s.id, "dropped", n)
	}
	s.unsubscribeAll(ctx) // a pool server's subscriptions outlive the session otherwise
	var err error
	if f := s.g.opts.CloseSession; f != nil {
		err = f(ctx, s.id)
	}
	if e := s.g.reg.CloseScope(ctx, ext.Scope{PoolID: s.scope.PoolID, SessionID: s.id}); e != nil && !errors.Is(e, ext.ErrClosed) {
		err = errors.Join(err, e)
	}
	s.idle.stop()
	s.g.cache.ForgetSession(s.id)
	s.g.forget(s)
	if err != nil {
		s.g.log.Error("session ended with errors", "session", s.id, "err", err)
	} else {
		s.g.log.Debug("session ended", "session", s.id)
	}
	close(s.ended)
	s.g.wg.Done()
}

// update applies the scope's changes pending to the server, as one. It runs on the
// session's updates, after a change (until the watch ends: the session's end, or the
// registry's) or, while the view has Problems, every Options.RetryProblems: that asks the
// degraded servers, whose recovery would otherwise reach no session (their tools are not
// listed, so no client call asks them either).
func (s *session) update(ctx context.Context) {
	select {
	case <-s.watch.Done():
		return
	default:
	}
	updated := map[string]bool{}
	for _, ev := range s.watch.Take() {
		if ev.Kind == ext.ResourcesChanged && ev.SourceURI != "" {
			updated[ev.SourceURI] = true
		}
	}
	v, err := s.g.cache.Get(ctx, s.scope)
	if err != nil {
		if ctx.Err() == nil {
			s.g.log.Error("view not updated", "session", s.id, "err", err)
			s.armRetry()
		}
		return
	}
	s.apply(v)
	s.syncLogs(ctx)
	s.resourcesUpdated(ctx, updated)
	s.armRetry()
}

// armRetry sets the retry timer off, or on while the view has Problems (made on first need).
func (s *session) armRetry() {
	switch {
	case len(s.view.Load().Problems) == 0:
		if s.retry != nil {
			s.retry.Stop()
		}
	case s.retry == nil:
		s.retry = time.AfterFunc(s.g.opts.RetryProblems, s.updates.Kick)
	default:
		s.retry.Reset(s.g.opts.RetryProblems)
	}
}

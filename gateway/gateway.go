package gateway

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentpool/agentpool/exposure"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/gateway/internal/lane"
	"github.com/agentpool/agentpool/view"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults of Options.
const (
	// DefaultIdleTimeout is how long an HTTP session may go without a request before it is
	// ended and its session-scoped servers released.
	DefaultIdleTimeout = 30 * time.Minute
	// DefaultSessionGrace is how long an HTTP session whose client closed its GET stream may
	// go without a request before it is ended.
	DefaultSessionGrace = 2 * time.Minute
	// DefaultMaxSessions caps the live sessions of one Gateway.
	DefaultMaxSessions = 4096
	// DefaultMaxSessionsPerUser caps the live sessions of one OAuth subject on one Gateway.
	DefaultMaxSessionsPerUser = 16
	// DefaultMaxInflight caps the requests of one session served at once.
	DefaultMaxInflight = 64
	// DefaultMaxBodyBytes caps an HTTP request body.
	DefaultMaxBodyBytes = 4 << 20
	// DefaultCloseTimeout bounds the end of one session (CloseSession, the registry's
	// CloseScope).
	DefaultCloseTimeout = 10 * time.Second
	// DefaultOpenTimeout bounds how long a new session waits for its own servers to start
	// (a slot of the connection pool included) before it is refused.
	DefaultOpenTimeout = 30 * time.Second
)

var (
	// ErrTooManySessions is the error of an initialize beyond Options.MaxSessions.
	ErrTooManySessions = errors.New("too many sessions")
	// ErrClosed is the error of a session started after Close.
	ErrClosed = errors.New("gateway closed")
)

// Options configure a Gateway. Registry is required; zero values elsewhere mean defaults.
type Options struct {
	// Registry holds the capabilities every session sees.
	Registry *ext.Registry
	// Scope is the base scope of every session: the pool (zero) or an agent (AgentName).
	// Each session gets SessionID set to its own id.
	Scope ext.Scope
	// Cache compiles and keeps the views; nil means a cache of the Gateway's own.
	Cache *view.Cache
	// OpenSession, when set, is called with a new session's id before its view is compiled
	// (the host registers the session's own servers); an error refuses the session.
	OpenSession func(ctx context.Context, id string) error
	// CloseSession, when set, is called with the id of a session that ended (DELETE,
	// transport closed, idle timeout, Close); the registry's scope of the session is closed
	// after it in any case.
	CloseSession func(ctx context.Context, id string) error
	// Logger receives session lifecycle messages, and one line per tool call at debug;
	// nil discards them.
	Logger *slog.Logger
	// Metrics, when set, count this Gateway's calls and sessions; one Metrics may serve
	// several Gateways (the pool's and every agent's). A Gateway whose base scope is the pool
	// also counts the registry's change events at that scope.
	Metrics *Metrics
	// Name and Version are the serverInfo sent at initialize ("agentpool", "dev" by default).
	Name, Version string
	// IdleTimeout ends an HTTP session that has made no request for this long
	// (DefaultIdleTimeout; negative: never).
	IdleTimeout time.Duration
	// SessionGrace ends an HTTP session whose client has gone sooner than IdleTimeout: once
	// the client's GET stream closed, after this long without a request (DefaultSessionGrace;
	// negative: never). A client that never opened a GET stream has IdleTimeout only.
	SessionGrace time.Duration
	// MaxSessions caps the live sessions (DefaultMaxSessions; negative: no cap).
	MaxSessions int
	// MaxSessionsPerUser caps the live sessions of one user, the subject of the access token
	// that opened them (Auth), so that one user cannot take every session
	// (DefaultMaxSessionsPerUser; negative: no cap). Without Auth it is not used.
	MaxSessionsPerUser int
	// CloseTimeout bounds ending one session (DefaultCloseTimeout).
	CloseTimeout time.Duration
	// OpenTimeout bounds how long a new session waits for the servers OpenSession registered
	// for it (DefaultOpenTimeout): past it, the session is refused with ErrNotReady and their
	// errors (such as the connection pool's being exhausted).
	OpenTimeout time.Duration
	// RetryProblems is how long a session keeps a view with Problems (a degraded server left
	// out) before fetching it again: a degraded server recovers only when asked, and nothing
	// else asks it (view.DefaultRetryProblems). The Gateway's own cache is made with it; a
	// Cache given in Cache should retry at least as often.
	RetryProblems time.Duration

	// HTTP only.

	// Token, when set, is the bearer token every HTTP request must carry. With Auth too, a
	// request may carry either.
	Token string
	// Auth, when set, makes the HTTP routes an OAuth protected resource (oauth.go): a request
	// needs an access token Auth.Verify accepts, and a session serves only the user who opened
	// it. One Auth may serve several Gateways (the pool's and every agent's).
	Auth *Auth
	// MaxBodyBytes caps an HTTP request body (DefaultMaxBodyBytes).
	MaxBodyBytes int64
	// AllowedOrigins are origins ("https://app.example") accepted besides the loopback ones.
	AllowedOrigins []string
	// MaxInflight caps the requests of one session served at once, over HTTP and stdio, and
	// of one POST in stateless mode (DefaultMaxInflight; negative: no cap): one more is
	// answered at once with a JSON-RPC error naming the cap.
	MaxInflight int
	// Stateless serves every HTTP request on its own, with no Mcp-Session-Id, from one server
	// of the base scope, so that any replica may answer any request (stateless.go says what
	// stops working). OpenSession and CloseSession are not called, nor are IdleTimeout and
	// MaxSessions used. Serve (stdio) is unaffected.
	Stateless bool

	// Tools is how sessions list tools (package exposure): every tool (the zero Config), or
	// the always-on ones with a search tool that activates what it finds, and a call tool.
	Tools exposure.Config
}

// A Gateway serves a scope's view as MCP servers: one mcp.Server per client session, over
// streamable HTTP (Handler) or any go-sdk transport (Serve). It is safe for concurrent use.
type Gateway struct {
	opts  Options
	reg   *ext.Registry
	cache *view.Cache
	log   *slog.Logger

	// userChecks and operatorChecks guard the MCP routes and the operators' routes
	// (middleware.go), composed once.
	userChecks, operatorChecks middleware
	metadata                   http.Handler // the OAuth resource metadata, behind requireHost

	inflight inflight                  // the requests of each session being served (Options.MaxInflight)
	lane     atomic.Pointer[lane.Lane] // serves the connections of passed-through calls (lane.go)

	mu       sync.Mutex
	sessions map[string]*session // live: opened and not ended
	closed   bool
	wg       sync.WaitGroup // session goroutines

	closing     context.Context    // done at Close: sessions still opening give up
	stopOpening context.CancelFunc // ends closing

	stateless *statelessServer  // Options.Stateless; nil otherwise
	catalog   *exposure.Catalog // the search index its sessions share
}

// New returns a Gateway over opts.Registry.
func New(opts Options) (*Gateway, error) {
	if opts.Registry == nil {
		return nil, errors.New("gateway: no registry")
	}
	if opts.Scope.SessionID != "" || opts.Scope.TurnID != "" {
		return nil, fmt.Errorf("gateway: base scope %s names a session or turn", opts.Scope)
	}
	if opts.Auth != nil && opts.Auth.Verify == nil {
		return nil, errors.New("gateway: Auth has no Verify")
	}
	if opts.Name == "" {
		opts.Name = "agentpool"
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	if opts.IdleTimeout == 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	if opts.SessionGrace == 0 {
		opts.SessionGrace = DefaultSessionGrace
	}
	if opts.MaxSessions == 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	if opts.MaxSessionsPerUser == 0 {
		opts.MaxSessionsPerUser = DefaultMaxSessionsPerUser
	}
	if opts.MaxInflight == 0 {
		opts.MaxInflight = DefaultMaxInflight
	}
	if opts.CloseTimeout <= 0 {
		opts.CloseTimeout = DefaultCloseTimeout
	}
	if opts.OpenTimeout <= 0 {
		opts.OpenTimeout = DefaultOpenTimeout
	}
	if opts.RetryProblems <= 0 {
		opts.RetryProblems = view.DefaultRetryProblems
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	g := &Gateway{opts: opts, reg: opts.Registry, cache: opts.Cache, log: opts.Logger,
		sessions: make(map[string]*session), catalog: exposure.NewCatalog()}
	g.closing, g.stopOpening = context.WithCancel(context.Background())
	g.userChecks = chain(g.requireHost, g.requireOrigin, g.requireToken)
	g.operatorChecks = chain(g.requireHost, g.requireOrigin, g.requireOperator)
	g.metadata = g.requireHost(http.HandlerFunc(g.serveResourceMetadata))
	if opts.Stateless {
		g.stateless = &statelessServer{g: g}
	}
	if g.cache == nil {
		g.cache = view.NewCache(g.reg, &view.CacheOptions{RetryProblems: opts.RetryProblems})
	}
	if g.log == nil {
		g.log = slog.New(slog.DiscardHandler)
	}
	if m := opts.Metrics; m != nil {
		m.add(g)
		if opts.Scope.AgentName == "" {
			g.wg.Add(1)
			go g.countChanges(m)
		}
	}
	return g, nil
}

// Sessions returns how many sessions are live.
func (g *Gateway) Sessions() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.sessions)
}

// Serve serves one client over t (an mcp.StdioTransport or mcp.IOTransport for `serve
// --stdio`) until the client disconnects or ctx ends; the session is ended either way before
// Serve returns. The stream of those two is read below the go-sdk (server/discover, batches);
// any other transport is the go-sdk's alone.
func (g *Gateway) Serve(ctx context.Context, t mcp.Transport) error {
	s, err := g.open(ctx, "stdio-"+rand.Text())
	if err != nil {
		return err
	}
	ss, err := s.server.Connect(ctx, g.framed(t, s), nil)
	if err != nil {
		s.end()
		return fmt.Errorf("gateway: connect: %w", err)
	}
	s.bind(ss)
	select {
	case <-s.ended:
	case <-ctx.Done():
		_ = ss.Close()
		<-s.ended
	}
	return nil
}

// Close ends every session (as if each client had disconnected) and waits for them, no
// longer than ctx lasts. New sessions are refused from then on. It does not close the
// registry, which belongs to the caller. Close is safe to call twice.
func (g *Gateway) Close(ctx context.Context) error {
	g.mu.Lock()
	g.closed = true
	live := make([]*session, 0, len(g.sessions))
	for _, s := range g.sessions {
		// A session still opening is left to open, which sees closed when done and ends
		// it: ending it under open's feet left its servers and its watch running.
		if !s.is(stateOpening) {
			live = append(live, s)
		}
	}
	g.mu.Unlock()
	g.stopOpening()
	if m := g.opts.Metrics; m != nil {
		m.remove(g)
	}
	if g.stateless != nil {
		g.stateless.close()
	}
	for _, s := range live {
		go s.close() // concurrently: each may wait for its servers to stop
	}
	done := make(chan struct{})
	go func() { g.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("gateway: close: %d sessions still ending: %w", g.Sessions(), ctx.Err())
	}
}

// reserve admits a new session id, or says why not.
func (g *Gateway) reserve(s *session) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return ErrClosed
	}
	if max := g.opts.MaxSessions; max > 0 && len(g.sessions) >= max {
		return fmt.Errorf("%w: %d live (max %d); end a session or raise --max-sessions", ErrTooManySessions, len(g.sessions), max)
	}
	if max := g.opts.MaxSessionsPerUser; max > 0 && s.user != "" {
		n := 0
		for _, o := range g.sessions {
			// One whose client has gone (DELETE) no longer counts, though its end may still
			// be under way: the user may open the next at once.
			if o.user == s.user && o.connLife.Err() == nil {
				n++
			}
		}
		if n >= max {
			return fmt.Errorf("%w: user %q has %d live (max %d, server.max_sessions_per_user); end one of them (DELETE) or raise the cap",
				ErrTooManySessions, s.user, n, max)
		}
	}
	g.sessions[s.id] = s
	g.wg.Add(1) // done by s.end
	return nil
}

// admit moves s from opening to open, unless the Gateway was closed while it opened. Under
// g.mu, so that Close either finds s open or leaves it to open's end.
func (g *Gateway) admit(s *session) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return ErrClosed
	}
	if _, moved := s.to(stateOpen); !moved {
		return ErrClosed // closed already
	}
	return nil
}

func (g *Gateway) forget(s *session) {
	g.mu.Lock()
	if g.sessions[s.id] == s {
		delete(g.sessions, s.id)
	}
	g.mu.Unlock()
}

func (g *Gateway) lookup(id string) *session {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.sessions[id]
}

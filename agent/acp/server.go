package acp

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/exposure"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/view"
	sdk "github.com/coder/acp-go-sdk"
)

// DefaultCloseTimeout bounds the end of one session (CloseSession, the registry's CloseScope).
const DefaultCloseTimeout = 10 * time.Second

// MCPServer is an MCP server a client declared in session/new, in ACP's terms: Type is
// "stdio" (Command, Args, Env), "http" (streamable HTTP) or "sse" (URL, Headers).
type MCPServer struct {
	Name    string
	Type    string
	Command string
	Args    []string
	Env     map[string]string
	URL     string
	Headers map[string]string
}

// The MCPServer types.
const (
	TypeStdio = "stdio"
	TypeHTTP  = "http"
	TypeSSE   = "sse"
)

// Options configure a Server. Model, Registry and AgentName are required; zero values
// elsewhere mean defaults.
type Options struct {
	// Model answers every session's turns.
	Model agent.Model
	// Registry holds the capabilities every session sees.
	Registry *ext.Registry
	// Cache compiles and keeps the views (with an agent's view options, when AgentName is a
	// configured agent); nil means a cache of the Server's own.
	Cache *view.Cache
	// AgentName is the agent of every session: each session's scope is {its id, AgentName}.
	AgentName string
	// Tools is how each session's agent offers the view's tools (agent.Options.Tools).
	Tools exposure.Config
	// Instructions is the agent's own system prompt.
	Instructions string
	// MaxSteps bounds the model steps of one turn (agent.DefaultMaxSteps).
	MaxSteps int
	// OpenSession, when set, is called with a new session's id before anything else (the host
	// registers the session's own servers); an error refuses the session.
	OpenSession func(ctx context.Context, id string) error
	// CloseSession, when set, is called with the id of a session that ended; the registry's
	// scope of the session is closed after it in any case.
	CloseSession func(ctx context.Context, id string) error
	// AddServer, when set, adds an MCP server the client declared in session/new to the
	// session's scope (after OpenSession). Nil: the client's servers are refused, and
	// initialize says no http or sse server is supported.
	AddServer func(ctx context.Context, sessionID string, s MCPServer) error
	// Permission, when set, says what happens before a call of a tool, by where the tool comes
	// from and its name as its capability lists it (view.Tool.Qualified when the view serves it
	// under another): PermissionAsk, PermissionAllow, PermissionDeny, or "" for the default (a
	// tool annotated read-only and not destructive runs, any other is asked about).
	Permission func(origin ext.Origin, tool string) string
	// Logger receives session lifecycle messages and problems; nil discards them.
	Logger *slog.Logger
	// Name and Version are the agentInfo sent at initialize ("agentpool", "dev" by default).
	Name, Version string
	// CloseTimeout bounds the end of one session (DefaultCloseTimeout).
	CloseTimeout time.Duration
}

// Server serves agents over ACP. It holds no connection: each Serve is one.
type Server struct {
	o     Options
	cache *view.Cache
	log   *slog.Logger
}

// New checks opts and returns a Server. It starts nothing.
func New(opts Options) (*Server, error) {
	switch {
	case opts.Model == nil:
		return nil, errors.New("acp: no model")
	case opts.Registry == nil:
		return nil, errors.New("acp: no registry")
	case opts.AgentName == "":
		return nil, errors.New("acp: no agent name")
	}
	if opts.Name == "" {
		opts.Name = "agentpool"
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	if opts.CloseTimeout <= 0 {
		opts.CloseTimeout = DefaultCloseTimeout
	}
	s := &Server{o: opts, cache: opts.Cache, log: opts.Logger}
	if s.cache == nil {
		s.cache = view.NewCache(opts.Registry, nil)
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s, nil
}

// Serve serves one client, reading its messages from in and writing to out (a process's
// stdin and stdout), until in ends (the client closed it) or ctx ends. Every session of the
// connection is ended before Serve returns, one that a session/new was still opening included:
// its turn cancelled, its servers released (CloseSession), its scope closed. A reader blocked in in.Read when ctx ends stays blocked
// until in is closed: the caller owns in.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	c := &conn{srv: s, sessions: map[string]*session{}, ready: make(chan struct{})}
	c.ctx, c.stop = context.WithCancel(context.Background())
	c.out = &announcer{w: out, waiting: map[string]chan struct{}{}}
	// Not SetLogger: the SDK's goroutines read the logger unguarded from the start (a data
	// race); its diagnostics go to slog.Default, which the CLI points at stderr.
	c.peer = sdk.NewAgentSideConnection(c, c.out, in)
	close(c.ready)
	select {
	case <-c.peer.Done():
	case <-ctx.Done():
	}
	c.closeAll()
	return nil
}

// conn is one client connection: the sdk.Agent the SDK calls, and its sessions.
type conn struct {
	srv   *Server
	peer  *sdk.AgentSideConnection // set once, before ready is closed
	ready chan struct{}
	out   *announcer

	// ctx ends when the connection does (closeAll): session/new handlers still opening a
	// session stop waiting for its servers.
	ctx  context.Context
	stop context.CancelFunc

	mu       sync.Mutex
	sessions map[string]*session
	closed   bool
	opening  sync.WaitGroup // session/new handlers running; added to only while !closed
}

var _ sdk.Agent = (*conn)(nil)

// Initialize answers with protocol version 1 (acp-go-sdk's), whatever the client asked: a
// client that does not speak it disconnects, as the protocol says.
func (c *conn) Initialize(context.Context, sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	servers := c.srv.o.AddServer != nil
	return sdk.InitializeResponse{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		AgentInfo:       &sdk.Implementation{Name: c.srv.o.Name, Version: c.srv.o.Version},
		AuthMethods:     []sdk.AuthMethod{},
		AgentCapabilities: sdk.AgentCapabilities{
			McpCapabilities:     sdk.McpCapabilities{Http: servers, Sse: servers},
			PromptCapabilities:  sdk.PromptCapabilities{EmbeddedContext: true},
			SessionCapabilities: sdk.SessionCapabilities{Close: &sdk.SessionCloseCapabilities{}},
		},
	}, nil
}

// Authenticate succeeds: no authentication method is advertised, the model's key is the
// server's own.
func (c *conn) Authenticate(context.Context, sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	return sdk.AuthenticateResponse{}, nil
}

// ListSessions is not supported (no sessionCapabilities.list).
func (c *conn) ListSessions(context.Context, sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	return sdk.ListSessionsResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionList)
}

// ResumeSession is not supported (no sessionCapabilities.resume).
func (c *conn) ResumeSession(context.Context, sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	return sdk.ResumeSessionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionResume)
}

// SetSessionConfigOption is not supported: no config option is offered.
func (c *conn) SetSessionConfigOption(context.Context, sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	return sdk.SetSessionConfigOptionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionSetConfigOption)
}

// SetSessionMode is not supported: no mode is offered.
func (c *conn) SetSessionMode(context.Context, sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	return sdk.SetSessionModeResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionSetMode)
}

// client returns the connection to the client. The SDK may call a handler before
// NewAgentSideConnection has returned to Serve: whoever sends must wait for it.
func (c *conn) client() *sdk.AgentSideConnection {
	<-c.ready
	return c.peer
}

// session returns the live session id names, or an invalid-params error.
func (c *conn) session(id sdk.SessionId) (*session, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.sessions[string(id)]; ok {
		return s, nil
	}
	return nil, sdk.NewInvalidParams(map[string]any{"error": "unknown session " + string(id)})
}

// forget drops an ended session.
func (c *conn) forget(s *session) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sessions[s.id] == s {
		delete(c.sessions, s.id)
	}
}

// enter counts a session/new handler in, unless the connection is closing.
func (c *conn) enter() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	c.opening.Add(1)
	return true
}

// closeAll refuses new sessions and ends every live one, concurrently, waiting for them and
// for the session/new handlers still running: each ends the session it was opening itself
// (it finds the connection closed), so none is left open, or closed, after Serve returns.
func (c *conn) closeAll() {
	c.mu.Lock()
	c.closed = true
	live := make([]*session, 0, len(c.sessions))
	for _, s := range c.sessions {
		live = append(live, s)
	}
	c.mu.Unlock()
	c.stop()
	var wg sync.WaitGroup
	for _, s := range live {
		wg.Go(s.end)
	}
	wg.Wait()
	c.opening.Wait()
}

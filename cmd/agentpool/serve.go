package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/gateway"
	"github.com/agentpool/agentpool/host"
	"github.com/agentpool/agentpool/internal/connlimit"
	"github.com/agentpool/agentpool/internal/gctune"
	"github.com/agentpool/agentpool/internal/proctune"
	"github.com/agentpool/agentpool/internal/rawio"
	"github.com/agentpool/agentpool/internal/writestall"
	"github.com/agentpool/agentpool/status"
	"github.com/agentpool/agentpool/view"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
)

// DefaultServeAddr is where `agentpool serve` listens without --http or server.addr:
// loopback only.
const DefaultServeAddr = config.DefaultServerAddr

// DefaultReadTimeout is server.read_timeout's default: how long a client may take to send a
// request, headers and body. A body is at most server.max_body (4 MiB by default), which this
// allows at some 140 KB/s.
const DefaultReadTimeout = 30 * time.Second

// headerTimeout bounds how long a client may take to send a request's headers (unless
// server.read_timeout is shorter); headers are small, and a client that cannot send them
// this fast is holding a connection rather than using it.
const headerTimeout = 10 * time.Second

// serveStopBound bounds the end of the sessions and of the HTTP server at shutdown; the host
// then closes within closeHost's own bound.
const serveStopBound = 10 * time.Second

// signalStops is set by a command for which a signal is the normal way to stop (serve): run
// then exits 0 rather than 128 + the signal's number, once the command returned cleanly.
var signalStops atomic.Bool

// serveOpts are serve's flags.
type serveOpts struct {
	addr           string
	stdio          bool
	idleTimeout    time.Duration
	maxSessions    int
	token          string
	allowedOrigins []string
	maxBody        int64         // server.max_body; no flag
	readTimeout    time.Duration // server.read_timeout; no flag
	agent          string        // --stdio: serve this agent's view
	insecureNoAuth bool          // serve a non-loopback listener with no token and no OAuth
}

func newServeCmd(opts *options) *cobra.Command {
	so := &serveOpts{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve skills, MCP servers and commands as one MCP server (streamable HTTP, or --stdio)",
		Long: "Serve the pool's view as one MCP server: every tool, skill (as prompts and skill:// resources),\n" +
			"command and upstream resource. Streamable HTTP at http://" + DefaultServeAddr + "/mcp by default\n" +
			"(each client its own session), or --stdio for one client that spawns agentpool.\n" +
			"Each agent of the config's agents section is served at /mcp/agents/<name>.\n" +
			"The config's server section sets the same as the flags; a flag given wins. The bearer\n" +
			"token is --token, else $AGENTPOOL_TOKEN, else server.token.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if so.agent != "" && !so.stdio {
				return fmt.Errorf("serve: --agent is for --stdio; over HTTP each agent is served at /mcp/agents/<name>")
			}
			return serveRun(cmd, opts, so)
		},
	}
	f := cmd.Flags()
	f.StringVar(&so.addr, "http", DefaultServeAddr, "listen on this address (port 0: any free port)")
	f.BoolVar(&so.stdio, "stdio", false, "serve one client on stdin/stdout instead of HTTP")
	f.DurationVar(&so.idleTimeout, "session-idle-timeout", gateway.DefaultIdleTimeout, "end an HTTP session after this long without a request")
	f.IntVar(&so.maxSessions, "max-sessions", gateway.DefaultMaxSessions, "cap on live HTTP sessions")
	f.StringVar(&so.token, "token", "", "require this bearer token on every HTTP request (default $AGENTPOOL_TOKEN)")
	f.StringArrayVar(&so.allowedOrigins, "allow-origin", nil, "accept browser requests from this origin besides loopback ones (repeatable)")
	f.StringVar(&so.agent, "agent", "", "with --stdio: serve this agent's view (config agents:)")
	f.BoolVar(&so.insecureNoAuth, "insecure-no-auth", false, "serve a listener that is not loopback with no token and no OAuth (anyone who reaches it can call every tool)")
	cmd.MarkFlagsMutuallyExclusive("http", "stdio")
	return cmd
}

// serveRun builds the host, serves until the client (stdio) or a signal ends it, and shuts
// down in order: no new connections, the sessions (and their servers), then the host.
func serveRun(cmd *cobra.Command, opts *options, so *serveOpts) error {
	ctx := cmd.Context()
	signalStops.Store(true)
	defer gctune.Start(gctune.DefaultHeadroom, gctune.DefaultFloor)()
	stderr := userOut(opts, cmd.ErrOrStderr())
	h, cleanup, err := buildServeHost(ctx, opts, stderr)
	if err != nil {
		return err
	}
	defer cleanup()
	defer closeHost(h)
	// The start (skill discovery's workers are as many as the processors) has them all; the
	// processors follow the CPU used from here on.
	defer proctune.Start(proctune.Config{})()
	// One state for the whole start: the file is followed from below, and a reload in between
	// must not make one part of the start read one config and another part the next.
	cfg := h.Current().Config
	so.fromConfig(cmd, cfg.Server)
	base := gateway.Options{
		Registry:       h.Registry,
		OpenSession:    h.OpenSessionFunc(""),
		CloseSession:   h.CloseSession,
		Logger:         cliLogger(opts),
		Metrics:        serveMetrics(h),
		Version:        version,
		IdleTimeout:    so.idleTimeout,
		MaxSessions:    so.maxSessions,
		Token:          so.token,
		AllowedOrigins: so.allowedOrigins,
		MaxBodyBytes:   so.maxBody,
		MaxInflight:    cfg.Server.MaxInflight, // no flag
		Stateless:      cfg.Server.Stateless,   // HTTP only; no flag
		Tools:          cfg.Server.Tools,       // no flag
	}
	// No flags: with auth, and a GET stream, only, which stdio has not.
	base.MaxSessionsPerUser, base.SessionGrace = cfg.Server.MaxSessionsPerUser, cfg.Server.SessionGrace
	if !so.stdio { // over stdio the client is the process that started it
		if err := requireAuthOffLoopback(so.addr, so.token, cfg.Server.Auth, so.insecureNoAuth, stderr); err != nil {
			return err
		}
		if base.Auth, err = serveAuth(cfg.Server.Auth, so.addr, cliLogger(opts)); err != nil {
			return err
		}
	}
	if so.stdio {
		o := base
		if so.agent != "" {
			if o, err = agentGateway(h, base, so.agent); err != nil {
				return err
			}
		}
		g, err := gateway.New(o)
		if err != nil {
			return err
		}
		rl, err := startReloader(ctx, h, userConfigPath(opts), opts.configFile == "", nil, nil, base.Metrics, cliLogger(opts))
		if err != nil {
			return errors.Join(err, stopGateways(g))
		}
		defer rl.Close()
		watch := status.WatchOptions{Report: sayTransitions(stderr)} // status.go
		if so.agent != "" {
			watch.Agents = func(*host.State) []string { return []string{so.agent} }
		}
		go status.Watch(ctx, h, watch)
		in := cmd.InOrStdin()
		err = g.Serve(ctx, &mcp.IOTransport{Reader: readCloser(in), Writer: nopWriteCloser{cmd.OutOrStdout()}})
		return errors.Join(err, stopGateways(g))
	}
	pool, err := gateway.New(base)
	if err != nil {
		return err
	}
	agents := map[string]*gateway.Gateway{}
	for _, name := range cfg.Agents.Names() {
		o, err := agentGateway(h, base, name)
		if err == nil {
			agents[name], err = gateway.New(o)
		}
		if err != nil {
			return errors.Join(err, stopGateways(append([]*gateway.Gateway{pool}, slices.Collect(maps.Values(agents))...)...))
		}
	}
	routes := gateway.Mux(pool, agents)
	rl, err := startReloader(ctx, h, userConfigPath(opts), opts.configFile == "", routes, func(name string) (*gateway.Gateway, error) {
		o, err := agentGateway(h, base, name)
		if err != nil {
			return nil, err
		}
		return gateway.New(o)
	}, base.Metrics, cliLogger(opts))
	if err != nil {
		return errors.Join(err, stopGateways(routes.Gateways()...))
	}
	defer rl.Close()
	if a := cfg.Server.Auth; a != nil {
		fmt.Fprintf(stderr, "agentpool: OAuth: every request needs an access token from %s (server.auth); resource metadata at %s<path>\n", a.Issuer, gateway.ResourceMetadataPath)
	}
	// Built once serve has its listener: the status page starts the eager servers.
	handler := func() http.Handler {
		return withStatus(ctx, h, pool, routes, rl, base.Metrics, withMetrics(routes, pool), stderr)
	} // status.go
	return serveHTTP(ctx, stderr, handler, routes, so.addr, so.readTimeout, cfg.Server.MaxConnections, agents,
		func() error { _ = rl.Close(); return stopGateways(routes.Gateways()...) })
}

// fromConfig fills in what the config's server section sets and no flag given overrides:
// flags first, then (for the token) $AGENTPOOL_TOKEN, then the section, then the defaults.
func (so *serveOpts) fromConfig(cmd *cobra.Command, s config.Server) {
	f := cmd.Flags()
	if !f.Changed("http") && s.Addr != "" {
		so.addr = s.Addr
	}
	if !f.Changed("session-idle-timeout") && s.SessionIdleTimeout != 0 {
		so.idleTimeout = s.SessionIdleTimeout
	}
	if !f.Changed("max-sessions") && s.MaxSessions != 0 {
		so.maxSessions = s.MaxSessions
	}
	if !f.Changed("allow-origin") && s.AllowedOrigins != nil {
		so.allowedOrigins = s.AllowedOrigins
	}
	if !f.Changed("token") {
		so.token = cmp.Or(os.Getenv("AGENTPOOL_TOKEN"), s.Token)
	}
	so.maxBody = s.MaxBody
	so.readTimeout = cmp.Or(s.ReadTimeout, DefaultReadTimeout)
}

// agentGateway returns the options of agent name's Gateway: base with the agent's scope, its
// sessions (OpenAgentSession) and a view cache compiling with its Include and tool filter.
func agentGateway(h *host.Host, base gateway.Options, name string) (gateway.Options, error) {
	a, err := h.Agent(name)
	if err != nil {
		return base, err
	}
	base.Scope = ext.Scope{AgentName: name}
	base.Tools = a.Config.Tools.Under(h.Current().Config.Server.Tools)
	base.Cache = view.NewCache(h.Registry, &view.CacheOptions{Compile: liveAgentViewOptions(h, a)})
	base.OpenSession = h.OpenSessionFunc(name)
	return base, nil
}

// stopGateways ends every session of every gateway, concurrently, within serveStopBound.
func stopGateways(gs ...*gateway.Gateway) error {
	sctx, cancel := context.WithTimeout(context.Background(), serveStopBound)
	defer cancel()
	errs := make(chan error, len(gs))
	for _, g := range gs {
		go func() { errs <- g.Close(sctx) }()
	}
	var err error
	for range gs {
		err = errors.Join(err, <-errs)
	}
	return err
}

// serveHTTP listens on addr, says where, and serves what handler returns once it has the
// listener (the pool at /mcp, each agent at /mcp/agents/<name>) until ctx ends. A client has readTimeout to send a request, headers and
// body, and an idle keep-alive connection is closed after as long (see newHTTPServer). At most
// maxConns connections are held (server.max_connections; connlimit keeps the probes answered).
// A write to a client that makes no progress for serveWriteStall fails and ends the connection.
func serveHTTP(ctx context.Context, stderr io.Writer, handler func() http.Handler, routes *gateway.Routes, addr string, readTimeout time.Duration, maxConns int, agents map[string]*gateway.Gateway, stop func() error) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	h := handler()
	ln = rawio.Listen(ln) // the hop's reads and writes do not wake the runtime's monitor
	ln = connlimit.Listen(ln, connlimit.Options{Max: maxConns, Probe: h, ProbePaths: []string{"/healthz", "/readyz"}, Key: "server.max_connections"})
	ln = writestall.Listen(ln, serveWriteStall) // no write to a client that stopped reading holds on
	srv := newHTTPServer(h, readTimeout)
	laneStop := func(context.Context) error { return nil }
	if routes != nil {
		// Calls passed through are read and answered off net/http (gateway.Routes.Listen).
		ln, laneStop = routes.Listen(ln, srv.IdleTimeout, srv.ReadHeaderTimeout)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(stderr, "agentpool: serving MCP at http://%s%s (status page: http://%s/); interrupt to stop\n", ln.Addr(), gateway.PoolPath, ln.Addr())
	if len(agents) > 0 {
		fmt.Fprintf(stderr, "agentpool: agents at http://%s%s<name>: %s\n", ln.Addr(), gateway.AgentsPath, strings.Join(slices.Sorted(maps.Keys(agents)), ", "))
	}
	select {
	case <-ctx.Done():
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	}
	// Shutdown stops accepting at once and waits for connections to go idle; the sessions'
	// open streams end only when the gateway closes them, so both run together.
	sctx, cancel := context.WithTimeout(context.Background(), serveStopBound)
	defer cancel()
	shut := make(chan error, 1)
	go func() { shut <- srv.Shutdown(sctx) }()
	go func() { shut <- laneStop(sctx) }()
	err = stop()
	for range 2 {
		if e := <-shut; e != nil {
			err = errors.Join(err, e, srv.Close())
		}
	}
	<-served
	return err
}

// serveWriteStall bounds each write to an HTTP client: one that makes no progress for as long
// fails and the connection closes (internal/writestall).
var serveWriteStall = writestall.Default

// newHTTPServer returns serve's HTTP server of handler, bounded against clients that hold
// connections without using them (slowloris): headers within headerTimeout, the whole request
// within readTimeout, and an idle keep-alive connection closed after readTimeout. net/http
// clears the read deadline once a request's body has been read to its end (it then reads the
// connection only to see the client leave), so ReadTimeout bounds what the client sends and
// never the response: a GET SSE stream or a long tool call outlives it.
// No WriteTimeout, for the same streams: serveHTTP's listener bounds each write by its
// stall instead.
func newHTTPServer(handler http.Handler, readTimeout time.Duration) *http.Server {
	return &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: min(headerTimeout, readTimeout),
		ReadTimeout:       readTimeout,
		IdleTimeout:       readTimeout,
	}
}

// buildServeHost builds the host as every command does (buildHost), without opening a
// session: each client session opens its own. With no --config and no --skills-dir that host
// serves the bundled example skills too, so a first run shows something real; serve says so.
// cleanup has nothing left to do (closeHost removes the examples' folder); it is kept for the
// caller's shutdown order.
func buildServeHost(ctx context.Context, opts *options, stderr io.Writer) (h *host.Host, cleanup func(), err error) {
	h, written, err := buildHost(ctx, opts, true)
	if err != nil {
		return nil, nil, err
	}
	if len(written) > 0 {
		fmt.Fprintf(stderr, "agentpool: no --config or --skills-dir: also serving the bundled example skills %s\n", strings.Join(written, ", "))
	}
	return h, func() {}, nil
}

// readCloser gives r a Close; the go-sdk closes its reader when the session ends.
func readCloser(r io.Reader) io.ReadCloser {
	if rc, ok := r.(io.ReadCloser); ok {
		return rc
	}
	return io.NopCloser(r)
}

// nopWriteCloser keeps stdout open when the session closes its writer.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agentpool/agentpool/examples"
	"github.com/agentpool/agentpool/gateway"
	"github.com/agentpool/agentpool/host"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
)

// DefaultServeAddr is where `agentpool serve` listens without --http: loopback only.
const DefaultServeAddr = "127.0.0.1:7433"

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
}

func newServeCmd(opts *options) *cobra.Command {
	so := &serveOpts{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve skills, MCP servers and commands as one MCP server (streamable HTTP, or --stdio)",
		Long: "Serve the pool's view as one MCP server: every tool, skill (as prompts and skill:// resources),\n" +
			"command and upstream resource. Streamable HTTP at http://" + DefaultServeAddr + "/mcp by default\n" +
			"(each client its own session), or --stdio for one client that spawns agentpool.\n" +
			"The bearer token may also come from $AGENTPOOL_TOKEN.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if so.token == "" {
				so.token = os.Getenv("AGENTPOOL_TOKEN")
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
	cmd.MarkFlagsMutuallyExclusive("http", "stdio")
	return cmd
}

// serveRun builds the host, serves until the client (stdio) or a signal ends it, and shuts
// down in order: no new connections, the sessions (and their servers), then the host.
func serveRun(cmd *cobra.Command, opts *options, so *serveOpts) error {
	ctx := cmd.Context()
	signalStops.Store(true)
	h, cleanup, err := buildServeHost(ctx, opts, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	defer cleanup()
	defer closeHost(h)
	g, err := gateway.New(gateway.Options{
		Registry:       h.Registry,
		OpenSession:    h.OpenSession,
		CloseSession:   h.CloseSession,
		Logger:         cliLogger(opts),
		Version:        version,
		IdleTimeout:    so.idleTimeout,
		MaxSessions:    so.maxSessions,
		Token:          so.token,
		AllowedOrigins: so.allowedOrigins,
	})
	if err != nil {
		return err
	}
	stop := func() error {
		sctx, cancel := context.WithTimeout(context.Background(), serveStopBound)
		defer cancel()
		return g.Close(sctx)
	}
	if so.stdio {
		in := cmd.InOrStdin()
		err := g.Serve(ctx, &mcp.IOTransport{Reader: readCloser(in), Writer: nopWriteCloser{cmd.OutOrStdout()}})
		return errors.Join(err, stop())
	}
	return serveHTTP(ctx, cmd.ErrOrStderr(), g, so.addr, stop)
}

// serveHTTP listens on addr, says where, and serves /mcp until ctx ends.
func serveHTTP(ctx context.Context, stderr io.Writer, g *gateway.Gateway, addr string, stop func() error) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", g.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(stderr, "agentpool: serving MCP at http://%s/mcp; interrupt to stop\n", ln.Addr())
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
	err = stop()
	if e := <-shut; e != nil {
		err = errors.Join(err, e, srv.Close())
	}
	<-served
	return err
}

// buildServeHost builds the host as every command does (buildHost), without opening a
// session: each client session opens its own. With no --config and no --skills-dir it also
// serves the bundled example skills, so a first run shows something real: they are written to
// a temporary directory (the skill manager reads real folders), which cleanup removes, and
// served as bundled skills, which any other skill of the same name outranks.
func buildServeHost(ctx context.Context, opts *options, stderr io.Writer) (h *host.Host, cleanup func(), err error) {
	cleanup = func() {}
	var bundled []string
	if opts.configFile == "" && len(opts.skillsDirs) == 0 {
		dir, err := os.MkdirTemp("", "agentpool-examples-")
		if err != nil {
			return nil, nil, fmt.Errorf("serve: the example skills: %w", err)
		}
		cleanup = func() { _ = os.RemoveAll(dir) }
		written, err := examples.WriteSkills(dir)
		if err != nil {
			cleanup()
			return nil, nil, fmt.Errorf("serve: %w", err)
		}
		bundled = []string{dir}
		fmt.Fprintf(stderr, "agentpool: no --config or --skills-dir: also serving the bundled example skills %s\n", strings.Join(written, ", "))
	}
	if h, err = buildHost(ctx, opts, true, bundled); err != nil {
		cleanup()
		return nil, nil, err
	}
	return h, cleanup, nil
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

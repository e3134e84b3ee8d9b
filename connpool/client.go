package connpool

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentpool/agentpool/sandbox"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// poolKey identifies a shareable client.
type poolKey struct {
	partition   string
	fingerprint string
}

// client is one live connection to one server, shared by its leases.
//
// Lifecycle: created "starting" (in the pool map, counted against
// the caps); start either fails (removed, ready closed with startErr) or
// succeeds (ready closed). The session goroutine waits on
// ClientSession.Wait; when the session ends, for any reason, it tears the
// process group down, records the error, closes done and removes the client
// from the pool.
type client struct {
	pool *Pool
	key  poolKey
	cfg  ServerConfig

	ready    chan struct{}
	startErr error // valid after ready

	session    *mcp.ClientSession // valid after ready when startErr == nil
	proc       *process           // stdio only
	httpT      *headerTransport   // HTTP only
	lean       *leanConn          // stdio only: passes calls through (Conn.CallRaw)
	rawHTTP    *rawHTTP           // streamable HTTP only: passes calls through
	httpCancel context.CancelFunc // HTTP only: ends the connection's lifetime context

	ended    atomic.Bool           // set as soon as the process or session is known dead
	failErr  atomic.Pointer[error] // HTTP only: the first request that failed in transport
	done     chan struct{}         // closed when the session has ended and the group is dead
	err      error                 // valid after done
	closing  sync.Once
	closeReq chan struct{} // closed to ask the session goroutine to shut down

	// guarded by pool.mu
	leases    int
	idleTimer *time.Timer
	idleSince time.Time
	inMap     bool
	doomed    bool // its partition was closed: it ends once it has no lease

	obsMu     sync.Mutex
	observers map[uint64]func(Notification)
	nextObs   uint64

	peers peers // calls in flight and their clients, for the server's requests
}

func newClient(p *Pool, k poolKey, cfg ServerConfig) *client {
	// The client keeps its own copy: a caller changing its maps or slices later must not change
	// a live server's configuration (nor race with the start).
	cfg.Args = slices.Clone(cfg.Args)
	cfg.Env = maps.Clone(cfg.Env)
	cfg.EnvPassthrough = slices.Clone(cfg.EnvPassthrough)
	cfg.Headers = maps.Clone(cfg.Headers)
	if cfg.Auth != nil {
		a := *cfg.Auth
		a.Scopes = slices.Clone(a.Scopes)
		cfg.Auth = &a
	}
	return &client{
		pool:      p,
		key:       k,
		cfg:       cfg,
		ready:     make(chan struct{}),
		done:      make(chan struct{}),
		closeReq:  make(chan struct{}),
		observers: make(map[uint64]func(Notification)),
	}
}

func (c *client) label() string { return c.cfg.label() }

// fanout delivers n to every observer of every lease. Observers must not block.
func (c *client) fanout(n Notification) {
	c.obsMu.Lock()
	fns := make([]func(Notification), 0, len(c.observers))
	for _, fn := range c.observers {
		fns = append(fns, fn)
	}
	c.obsMu.Unlock()
	for _, fn := range fns {
		fn(n)
	}
}

func (c *client) addObserver(fn func(Notification)) uint64 {
	c.obsMu.Lock()
	defer c.obsMu.Unlock()
	c.nextObs++
	c.observers[c.nextObs] = fn
	return c.nextObs
}

func (c *client) removeObserver(id uint64) {
	c.obsMu.Lock()
	delete(c.observers, id)
	c.obsMu.Unlock()
}

// ClientCapabilities returns the capabilities the pool's clients declare to every server:
// roots, sampling (with tools) and elicitation (form and URL), whatever the clients of the
// calls will be, since they are not known when a shared server starts. A request the client
// of a call cannot answer gets that client's error.
func ClientCapabilities() *mcp.ClientCapabilities {
	return &mcp.ClientCapabilities{
		RootsV2:     &mcp.RootCapabilities{},
		Sampling:    &mcp.SamplingCapabilities{Tools: &mcp.SamplingToolsCapabilities{}},
		Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}},
	}
}

func (c *client) mcpClient() *mcp.Client {
	opts := &mcp.ClientOptions{
		Logger: c.pool.opts.Logger,
		ToolListChangedHandler: func(_ context.Context, r *mcp.ToolListChangedRequest) {
			c.fanout(Notification{Kind: ToolsListChanged, Params: r.Params})
		},
		ResourceListChangedHandler: func(_ context.Context, r *mcp.ResourceListChangedRequest) {
			c.fanout(Notification{Kind: ResourcesListChanged, Params: r.Params})
		},
		PromptListChangedHandler: func(_ context.Context, r *mcp.PromptListChangedRequest) {
			c.fanout(Notification{Kind: PromptsListChanged, Params: r.Params})
		},
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			uri := ""
			if r.Params != nil {
				uri = r.Params.URI
			}
			c.fanout(Notification{Kind: ResourceUpdated, URI: uri, Params: r.Params})
		},
		// No ProgressNotificationHandler nor LoggingMessageHandler: both are fanned out by
		// the transport tap, in read order (see deliverInOrder).

		Capabilities: ClientCapabilities(),
	}
	mc := mcp.NewClient(c.pool.opts.ClientInfo, opts)
	mc.AddReceivingMiddleware(c.forwardRequests)
	return mc
}

// start connects the client. It runs on a pool goroutine with a context that
// ends at StartupTimeout or pool Close, independent of the Get that caused it,
// so one caller giving up does not fail the others waiting on the same start.
func (c *client) start(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.startTimeout())
	defer cancel()
	var t mcp.Transport
	var lt *leanTransport // stdio only
	var rh *rawHTTP       // streamable HTTP only
	switch c.cfg.transportType() {
	case TypeStdio:
		proc, err := spawn(c.cfg, c.pool.opts.StderrBytes, c.pool.opts.Subreaper, c.pool.starter.start, c.pool.goTracked)
		if errors.Is(err, sandbox.ErrUnavailable) { // one line: it names the server already
			return fmt.Errorf("connpool: %w (%w): %w", ErrStart, ErrPermanent, err)
		}
		if err != nil {
			what := fmt.Sprintf("spawn %q", c.cfg.Command)
			if c.cfg.Cwd != "" {
				// exec reports a missing cwd as the command's own ENOENT.
				what += fmt.Sprintf(" in cwd %q", c.cfg.Cwd)
			}
			if permanentSpawnError(err) {
				return fmt.Errorf("connpool: server %q: %w (%w): %s: %w", c.label(), ErrStart, ErrPermanent, what, err)
			}
			return fmt.Errorf("connpool: server %q: %w: %s: %w", c.label(), ErrStart, what, err)
		}
		c.proc = proc
		c.pool.procs.Add(1)
		c.pool.goTracked(func() {
			<-proc.exited
			c.ended.Store(true)
			c.pool.procs.Add(-1)
		})
		lt = &leanTransport{r: proc.stdout, w: proc.stdin, deliver: c.deliverInOrder, ended: c.streamEnded}
		t = lt
	case TypeStreamableHTTP, TypeSSE:
		hc, ht := newHTTPClient(c.cfg.URL, c.cfg.Headers, c.transportFailed)
		if dial := c.pool.opts.DialContext; dial != nil {
			ht.base.DialContext = dial
		}
		hc.Transport = &sseProgressTap{base: hc.Transport, deliver: c.deliverInOrder}
		c.httpT = ht
		if c.cfg.Auth != nil {
			// The metadata, registration and token requests go without the server's headers,
			// on the client's own connections (closed with it).
			h, err := newOAuthHandler(c.cfg, c.label(), &c.pool.opts, &http.Client{Transport: ht.base, Timeout: 30 * time.Second}, &c.pool.tokens)
			if err != nil {
				return fmt.Errorf("connpool: server %q: %w (%w): %w", c.label(), ErrStart, ErrPermanent, err)
			}
			ht.auth = &authorizer{server: c.label(), handler: h, logger: c.pool.opts.Logger}
		}
		life, cancel := context.WithCancel(context.Background())
		c.httpCancel = cancel
		var inner mcp.Transport = &mcp.StreamableClientTransport{Endpoint: ht.endpoint(c.cfg.URL), HTTPClient: hc}
		if c.cfg.transportType() == TypeSSE {
			inner = &mcp.SSEClientTransport{Endpoint: ht.endpoint(c.cfg.URL), HTTPClient: hc}
		} else {
			// Passed-through calls go on a transport of their own (leanTransport), with the
			// same headers, secrets, OAuth, failures and notification tap.
			rt, lean := ht.leanTransport()
			rhc := &http.Client{Transport: &sseProgressTap{base: rt, deliver: c.deliverInOrder}}
			rh = &rawHTTP{hc: rhc, lean: lean, endpoint: ht.endpoint(c.cfg.URL), c: c, life: life}
		}
		t = &lifetimeTransport{inner: inner, life: life, cancel: cancel}
	}
	mc := c.mcpClient()
	if configure := c.pool.opts.ConfigureClient; configure != nil {
		if err := configure(mc); err != nil {
			c.teardown()
			return fmt.Errorf("connpool: server %q: %w: configure client: %w", c.label(), ErrStart, err)
		}
	}
	session, err := mc.Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: c.pool.opts.ProtocolVersion})
	if err != nil {
		c.teardown()
		switch {
		case c.httpT != nil && c.httpT.auth != nil && c.httpT.auth.lastErr() != nil:
			// Authorization failed (no login, credentials refused): trying again at once will not
			// mend it, and the reason is the authorization's, not the SDK's "Unauthorized".
			return fmt.Errorf("connpool: server %q: %w (%w): %w", c.label(), ErrStart, ErrPermanent, c.httpT.auth.lastErr())
		case c.httpT != nil && permanentStatus(int(c.httpT.firstStatus.Load())):
			status := int(c.httpT.firstStatus.Load())
			return fmt.Errorf("connpool: server %q: %w (%w): HTTP %d %s on initialize: %w",
				c.label(), ErrStart, ErrPermanent, status, http.StatusText(status), err)
		case errors.Is(ctx.Err(), context.DeadlineExceeded) && c.pool.ctx.Err() == nil:
			return fmt.Errorf("connpool: server %q: %w: %w after %v: %w%s",
				c.label(), ErrStart, ErrStartTimeout, c.cfg.startTimeout(), err, c.exitDetail())
		}
		return fmt.Errorf("connpool: server %q: %w: %w%s", c.label(), ErrStart, err, c.exitDetail())
	}
	c.session = session
	if lt != nil {
		c.lean = lt.conn.Load()
	}
	if rh != nil {
		rh.session = session.ID()
		if ir := session.InitializeResult(); ir != nil {
			rh.version = ir.ProtocolVersion
		}
		c.rawHTTP = rh
	}
	c.pool.goTracked(c.watch)
	return nil
}

// watch owns the live session: it returns when the session has ended and the
// server is fully torn down.
func (c *client) watch() {
	waitErr := make(chan error, 1)
	c.pool.goTracked(func() { waitErr <- c.session.Wait() })
	var err error
	select {
	case err = <-waitErr:
	case <-c.closeReq:
		if c.proc != nil {
			// End the process first so that Close does not wait for calls a
			// hung server would never answer.
			c.teardown()
			_ = c.session.Close()
		} else {
			// HTTP: close gracefully (the streamable client sends DELETE),
			// then cut the streams after KillGrace.
			c.pool.goTracked(func() { _ = c.session.Close() })
			t := time.NewTimer(c.pool.opts.KillGrace)
			select {
			case err = <-waitErr:
				waitErr <- err
			case <-t.C:
			}
			t.Stop()
			c.teardown()
		}
		err = <-waitErr
	}
	c.ended.Store(true)
	c.teardown()
	_ = c.session.Close()
	if err == nil || errors.Is(err, mcp.ErrConnectionClosed) {
		err = nil
	}
	c.err = fmt.Errorf("connpool: server %q: %w%s", c.label(), ErrServerExited, c.exitDetail())
	if fe := c.failErr.Load(); fe != nil {
		c.err = fmt.Errorf("%w: %w", c.err, *fe)
	}
	if err != nil {
		c.err = fmt.Errorf("%w: %w", c.err, err)
	}
	close(c.done)
	c.pool.remove(c)
}

// streamEnded ends a stdio client whose stream has ended (see leanTransport.ended): it is
// marked ended before any caller learns of it, and closed, which ends its process. A server
// that can no longer be written to but keeps its stdout open would otherwise live on with a
// session nobody ends, out of the pool's maps, and outlast Close.
func (c *client) streamEnded() {
	c.ended.Store(true)
	c.close()
}

// transportFailed ends an HTTP client one of whose requests got no HTTP
// response (connection refused, reset or dropped by the server): the server
// is gone or unreachable, and the SDK would otherwise keep the session "live"
// while its standalone stream retries for tens of seconds. The client is
// marked ended at once, before the failed request's error reaches its caller,
// so the next Get starts a new session; its leases' Done closes shortly after
// and Err names the failed request.
func (c *client) transportFailed(err error) {
	if c.failErr.CompareAndSwap(nil, &err) {
		select {
		case <-c.ready: // live: say why it ends (a failed start is logged by runStart)
			c.pool.opts.Logger.Warn("connpool: HTTP request failed; ending the client", "server", c.label(), "err", err)
		default:
		}
	}
	c.ended.Store(true)
	c.close()
}

// teardown ends the process group (stdio) or idle HTTP connections. It is
// idempotent and blocks until a stdio group is dead and its stderr drained.
func (c *client) teardown() {
	if c.proc != nil {
		c.proc.terminate(c.pool.opts.KillGrace)
		// stderr reaches EOF once every holder of its write end is dead; a
		// process that left the group (setsid) could hold it longer.
		t := time.NewTimer(c.pool.opts.KillGrace)
		select {
		case <-c.proc.stderrDone:
		case <-t.C:
		}
		t.Stop()
	}
	if c.httpT != nil {
		c.httpCancel()
		c.httpT.base.CloseIdleConnections()
		if c.rawHTTP != nil && c.rawHTTP.lean != nil {
			c.rawHTTP.lean.CloseIdleConnections()
		}
	}
}

// exitDetail renders how the process ended and its stderr tail, for errors.
func (c *client) exitDetail() string {
	if c.proc == nil {
		return ""
	}
	s := " (" + c.proc.describeExit() + ")"
	if tail := c.proc.stderr.String(); tail != "" {
		s += "; stderr: " + tail
	}
	return s
}

// close asks the session goroutine to shut the client down; it returns at
// once. Waiting is done on done (or the pool's WaitGroup).
func (c *client) close() {
	c.closing.Do(func() { close(c.closeReq) })
}

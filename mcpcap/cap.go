package mcpcap

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/hiddentext"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Interface guards: the RFC's McpServerCap implements every resource interface.
var (
	_ ext.Capability             = (*Cap)(nil)
	_ ext.MCPResource            = (*Cap)(nil)
	_ ext.ResourceTemplateSource = (*Cap)(nil)
	_ ext.SkillResource          = (*Cap)(nil)
	_ ext.CommandResource        = (*Cap)(nil)
	_ ext.ChangeObservable       = (*Cap)(nil)
	_ ext.SchemeSource           = (*Cap)(nil)
	_ ext.Instructor             = (*Cap)(nil)
	_ ext.Completer              = (*Cap)(nil)
	_ ext.HealthReporter         = (*Cap)(nil)
	_ ext.ResourceSubscriber     = (*Cap)(nil)
	_ ext.Originator             = (*Cap)(nil)
)

// Cap is McpServerCap: one MCP server as a capability. Create it with New; it does no I/O
// until first used. All methods are safe for concurrent use.
type Cap struct {
	ext.Notifier

	cfg       Config
	log       *slog.Logger
	pool      *connpool.Pool
	partition string
	injected  *mcp.ClientSession
	guard     Guard     // nil: listings are served as they are
	manifests Manifests // nil: listings are not cached across runs

	// cur is the live connection, read lock-free on the hot path.
	cur atomic.Pointer[conn]
	// tools is the current tool snapshot (immutable once stored).
	tools atomic.Pointer[toolSet]
	// schemes are the URI schemes of the last resource listing, kept across reconnects so that
	// ResourceSchemes can answer without connecting.
	schemes atomic.Pointer[[]string]
	// cacheSem serialises reading the manifest (a context-aware mutex); cacheTried, under it,
	// is set once a dormant Lazy Cap looked for its tools there.
	cacheSem   chan struct{}
	cacheTried bool
	// staleTools is set by a tools list_changed: the next access re-lists.
	staleTools atomic.Bool
	// connectSem serialises connect attempts (a context-aware mutex).
	connectSem chan struct{}
	// progress routes progress notifications to the calls that asked for them.
	progress progressRoutes
	// logs are the observers of the server's log messages.
	logs logObservers

	stop chan struct{} // closed by Close; stops watchers, backoff sleeps and waits for the pool
	wg   sync.WaitGroup
	// dials counts pooled dials between Get and the installation (or return) of their lease;
	// Add only while not closed, under mu.
	dials sync.WaitGroup
	// closeDone is closed once Close gave back the connection and the goroutines stopped.
	closeDone chan struct{}

	mu          sync.Mutex // guards the fields below
	closed      bool
	everUp      bool // a connection has been made at least once
	degraded    bool
	lastErr     error
	nextAttempt time.Time
	connecting  bool // a connect round is running (connectSlow past its checks)
	connectedAt time.Time
	reconnects  int
	// The cached listings of the current connection, dropped on list_changed and reconnect.
	resList    listing[*resourceCache]
	promptList listing[[]*mcp.Prompt]
	skillList  listing[*skillCache]
	// blockedPrompts: by the server's name, why the Guard keeps each prompt out of the last
	// prompts listing.
	blockedPrompts atomic.Pointer[map[string]error]
	// blockedTemplates: the templates the Guard keeps out of the last resource-templates
	// listing, and why.
	blockedTemplates atomic.Pointer[[]blockedTemplate]
	// blockedSkills: the skills the Guard keeps out of the last skills listing, and why.
	blockedSkills atomic.Pointer[[]blockedSkill]

	// subMu serialises the Cap's subscription changes (it is held across upstream requests).
	subMu sync.Mutex
	// subs counts the Cap's resource subscriptions by URI, held on session subsOn (see
	// subscribe.go). Guarded by subMu.
	subs   map[string]int
	subsOn *mcp.ClientSession

	calls calls // guarded by mu (handover.go)
}

// New validates cfg and returns a Cap. It does no I/O: the connection is made on first use.
// Exactly one of WithClient or WithPool must be given.
func New(cfg Config, opts ...Option) (*Cap, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	cfg.Tools = append([]ext.ToolEntry(nil), cfg.Tools...)
	cfg.AllowTools = append([]string(nil), cfg.AllowTools...)
	cfg.DenyTools = append([]string(nil), cfg.DenyTools...)
	if err := cfg.validate(&o); err != nil {
		return nil, err
	}
	log := o.logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Cap{
		cfg:        cfg,
		log:        log.With("mcp_server", cfg.Name),
		pool:       o.pool,
		partition:  o.partition,
		injected:   o.client,
		guard:      o.guard,
		manifests:  o.manifests,
		connectSem: make(chan struct{}, 1),
		cacheSem:   make(chan struct{}, 1),
		stop:       make(chan struct{}),
		closeDone:  make(chan struct{}),
	}
	if cfg.Lazy && len(cfg.Tools) > 0 {
		c.tools.Store(c.buildToolSet(staticTools(cfg.Tools), true))
	}
	return c, nil
}

// Name returns the server name.
func (c *Cap) Name() string { return c.cfg.Name }

// Origin is remote: "mcp://<name>".
func (c *Cap) Origin() ext.Origin { return ext.RemoteOrigin(c.cfg.Name) }

// HiddenText is the server's hidden_text key (view.HiddenTextPolicy): what a view does with
// its definitions whose text holds hidden text. Unset, it is hiddentext.PolicySanitize.
func (c *Cap) HiddenText() hiddentext.Policy {
	if c.cfg.Server.Server.HiddenText == decl.HiddenTextBlock {
		return hiddentext.PolicyBlock
	}
	return hiddentext.PolicySanitize
}

// Config returns a copy of the configuration the Cap was built with, defaults filled in.
func (c *Cap) Config() Config { return c.cfg }

// ToolPrefix is the prefix the names of the Cap's tools carry (Config.Prefix; "" for none). A
// view holds the names under it for this server.
func (c *Cap) ToolPrefix() string {
	if c.cfg.Prefix == nil {
		return ""
	}
	return *c.cfg.Prefix
}

// Instructions returns the server's initialize instructions as the static part. It does no
// I/O: before the first connection it returns none.
func (c *Cap) Instructions(ctx context.Context) (ext.Instructions, error) {
	if c.isClosed() {
		return ext.Instructions{}, c.errClosed()
	}
	cn := c.cur.Load()
	if cn == nil {
		return ext.Instructions{}, nil
	}
	if ir := cn.session.InitializeResult(); ir != nil {
		return ext.Instructions{Static: ir.Instructions}, nil
	}
	return ext.Instructions{}, nil
}

// Close gives back the Cap's resource subscriptions (the server is told about each one no
// other Cap on the session holds), releases the pooled lease (an injected client is left open
// for its owner), stops the Cap's goroutines and makes later calls fail with ext.ErrClosed. It
// is idempotent, safe without prior use and for concurrent use: every call returns nil once
// all that is done, or an error wrapping ctx.Err() if ctx ends first (the rest then finishes
// in the background, bounded by the first caller's ctx).
func (c *Cap) Close(ctx context.Context) error {
	c.mu.Lock()
	first := !c.closed
	c.closed = true
	c.mu.Unlock()
	if first {
		if testHookClosing != nil {
			testHookClosing(c)
		}
		close(c.stop)
		if c.guard != nil {
			_ = c.guard.Close()
		}
		cn := c.cur.Swap(nil)
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			c.dials.Wait()     // a dial in progress retires its lease on seeing closed
			c.releaseSubs(ctx) // while the lease still holds the session
			if cn != nil {
				cn.retire()
			}
		}()
		go func() { c.wg.Wait(); close(c.closeDone) }()
	}
	select {
	case <-c.closeDone:
		return nil
	default:
	}
	select {
	case <-c.closeDone:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("mcp server %q: close: %w", c.cfg.Name, ctx.Err())
	}
}

// testHookClosing, when set by a test, runs in the first Close once the Cap is marked closed,
// before it gives anything back.
var testHookClosing func(*Cap)

func (c *Cap) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

func (c *Cap) errClosed() error {
	return fmt.Errorf("mcp server %q: %w", c.cfg.Name, ext.ErrClosed)
}

func (c *Cap) emit(kind ext.ChangeKind, uri string) {
	c.Emit(ext.ChangeEvent{Capability: c.cfg.Name, Kind: kind, SourceURI: uri})
}

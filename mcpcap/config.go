package mcpcap

import (
	"errors"
	"fmt"
	"log/slog"
	"path"
	"time"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/ext"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Scope values for Config.Scope (decl.ScopePool, decl.ScopeSession).
const (
	// ScopePool shares one connection per configuration across the whole pool
	// (partition connpool.GlobalPartition).
	ScopePool = decl.ScopePool
	// ScopeSession gives each session its own connection (partition = the session id), so a
	// stateful server is never shared between sessions.
	ScopeSession = decl.ScopeSession
)

// Call-retry policies for Retry.Calls (decl.CallsSafe, decl.CallsAlways, decl.CallsNever).
const (
	// CallsSafe retries a call cut off by a lost connection only when the tool is annotated
	// readOnlyHint or idempotentHint. It is the default.
	CallsSafe = decl.CallsSafe
	// CallsAlways retries every call cut off by a lost connection.
	CallsAlways = decl.CallsAlways
	// CallsNever never retries a call that may have reached the server.
	CallsNever = decl.CallsNever
)

// Defaults applied by New to zero fields.
const (
	DefaultTimeout = 60 * time.Second
	// DefaultStartupTimeout bounds one start of a pooled server (Config.Server.StartupTimeout,
	// the startup_timeout key): generous, since a first `npx -y` download is slow.
	DefaultStartupTimeout = connpool.DefaultStartTimeout
	DefaultAttempts       = decl.DefaultAttempts
	DefaultBackoff        = time.Second
	// MaxAttempts bounds Retry.Attempts: the backoff doubles per attempt and would overflow.
	MaxAttempts = decl.MaxAttempts
)

// ErrInvalidConfig reports a Config that New rejects; the message names the server and field.
var ErrInvalidConfig = errors.New("invalid MCP server config")

// ErrDegraded reports a capability whose server could not be reached after the configured
// attempts. It is wrapped with the server name and its last error (and stderr tail).
var ErrDegraded = errors.New("MCP server degraded")

// ErrConnectionLost reports a call cut off by a lost connection that was not retried.
var ErrConnectionLost = errors.New("connection lost")

// Config configures one MCP server as a capability (DESIGN.md "MCP servers", config per server).
type Config struct {
	// Name is the server name: the capability name, the command prefix ("<name>:<prompt>")
	// and the authority of mcp://<name>/ URIs. Required.
	Name string
	// Server says how to reach the server (stdio command or URL): its declaration. Used with
	// WithPool. Its StartupTimeout bounds one start, separately from Timeout; zero means DefaultStartupTimeout.
	// A start that runs out of it is not retried within the same connect round. Caps sharing
	// a pooled server share its start: the first one's StartupTimeout applies to it.
	Server connpool.ServerConfig
	// Lazy defers connecting to the first call; until then Tools serves the static Tools, or
	// without them the tools cached by an earlier run (WithManifests), and the other listings
	// (resources, templates, prompts, skills) are empty. With neither, the first listing
	// connects.
	Lazy bool
	// Tools are the static tools served while a Lazy capability is not connected, named as
	// the server names them (before Prefix). They win over a cached manifest.
	Tools []ext.ToolEntry
	// Scope is ScopePool (default) or ScopeSession; it selects the pool partition.
	Scope string
	// Prefix is prepended to every tool name this capability serves; nil and "" mean none.
	// The host gives a configured server "<server>__" (ext.ToolName) unless its config says
	// otherwise, and a skill's own server "" (the skill manager namespaces those itself).
	Prefix *string
	// AllowTools, if not empty, keeps only the tools matching one of its patterns
	// (path.Match syntax, matched against the server's tool name). DenyTools removes the tools
	// matching one of its patterns; deny wins over allow.
	AllowTools, DenyTools []string
	// Timeout bounds each call, not the start that may precede it; default DefaultTimeout.
	Timeout time.Duration
	// Retry configures reconnection and call retries: the declaration's retry key, zero
	// fields meaning DefaultAttempts, DefaultBackoff and CallsSafe.
	Retry decl.Retry
}

// Option configures New.
type Option func(*options)

type options struct {
	client    *mcp.ClientSession
	pool      *connpool.Pool
	partition string
	logger    *slog.Logger
	guard     Guard
	manifests Manifests
}

// WithClient injects a connected client session (client injection, RFC-0051). The Cap uses it
// as is and never closes it: its owner does. A Cap with an injected client cannot reconnect;
// when that session ends the Cap becomes degraded. Notifications of an injected session reach
// the Cap only if its owner forwards them with HandleNotification; skills/list and skills/get
// work only if the owner registered them with RegisterSkillMethods on its mcp.Client.
func WithClient(s *mcp.ClientSession) Option {
	return func(o *options) { o.client = s }
}

// WithPool makes the Cap lease its connection from p in partition. An empty partition means
// connpool.GlobalPartition for Scope "pool"; Scope "session" requires the session id.
// The Cap releases its lease on Close and never closes the pooled client itself.
func WithPool(p *connpool.Pool, partition string) Option {
	return func(o *options) { o.pool, o.partition = p, partition }
}

// WithLogger sets the logger for reconnects, degradation and dropped notifications.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) { o.logger = l }
}

// validate fills defaults and checks cfg; o is the applied options.
func (cfg *Config) validate(o *options) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("mcp server %q: %s: %w", cfg.Name, fmt.Sprintf(format, a...), ErrInvalidConfig)
	}
	if cfg.Name == "" {
		return fmt.Errorf("mcp server: name is required: %w", ErrInvalidConfig)
	}
	switch cfg.Scope {
	case "":
		cfg.Scope = ScopePool
	case ScopePool, ScopeSession:
	default:
		return bad("scope %q: want %q or %q", cfg.Scope, ScopePool, ScopeSession)
	}
	switch cfg.Retry.Calls {
	case "":
		cfg.Retry.Calls = CallsSafe
	case CallsSafe, CallsAlways, CallsNever:
	default:
		return bad("retry.calls %q: want %q, %q or %q", cfg.Retry.Calls, CallsSafe, CallsAlways, CallsNever)
	}
	if cfg.Retry.Attempts < 0 || cfg.Retry.Backoff < 0 || cfg.Timeout < 0 {
		return bad("negative retry.attempts, retry.backoff or timeout")
	}
	if cfg.Retry.Attempts > MaxAttempts {
		// Backoff doubles per attempt: beyond this the delay overflows time.Duration.
		return bad("retry.attempts %d: at most %d", cfg.Retry.Attempts, MaxAttempts)
	}
	if cfg.Retry.Attempts == 0 {
		cfg.Retry.Attempts = DefaultAttempts
	}
	if cfg.Retry.Backoff == 0 {
		cfg.Retry.Backoff = DefaultBackoff
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	for _, p := range append(append([]string(nil), cfg.AllowTools...), cfg.DenyTools...) {
		if _, err := path.Match(p, ""); err != nil {
			return bad("tool pattern %q: %v", p, err)
		}
	}
	for i, t := range cfg.Tools {
		if t.Name == "" {
			return bad("tools[%d]: name is required", i)
		}
	}
	switch {
	case o.client != nil && o.pool != nil:
		return bad("WithClient and WithPool are exclusive")
	case o.client == nil && o.pool == nil:
		return bad("needs WithClient or WithPool")
	case o.pool != nil:
		if err := cfg.Server.Validate(); err != nil {
			return bad("%v", err)
		}
		if cfg.Server.StartupTimeout == 0 {
			cfg.Server.StartupTimeout = DefaultStartupTimeout
		}
		if o.partition == "" {
			if cfg.Scope == ScopeSession {
				return bad("scope session needs the session id as the pool partition")
			}
			o.partition = connpool.GlobalPartition
		}
	}
	return nil
}

// allowed reports whether the server's tool name passes AllowTools and DenyTools.
func (cfg *Config) allowed(name string) bool {
	for _, p := range cfg.DenyTools {
		if ok, _ := path.Match(p, name); ok {
			return false
		}
	}
	if len(cfg.AllowTools) == 0 {
		return true
	}
	for _, p := range cfg.AllowTools {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

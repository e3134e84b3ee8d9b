package connpool

import (
	"context"
	"log/slog"
	"net"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults applied by New for zero Options fields.
const (
	DefaultMaxClients = 20
	// DefaultMaxTotalClients is the cap of all partitions together: the gateway's default
	// session cap (server.max_sessions, 4096), so that at the defaults every session can
	// have a server of its own before the total binds.
	DefaultMaxTotalClients = 4096
	DefaultIdleTimeout     = 5 * time.Minute
	DefaultKillGrace       = 2 * time.Second
	DefaultStderrBytes     = 16 << 10
	// DefaultProtocolVersion is the MCP version the pool asks servers for: the latest one in
	// which a server may send requests (sampling, elicitation, roots) to its client during a
	// call, which is how a gateway's clients get them. From 2026-07-28 (SEP-2322) those are
	// embedded in results instead, which no client of the 2025-11-25 protocol can be given.
	DefaultProtocolVersion = "2025-11-25"
)

// DefaultMaxSessionProcesses caps the stdio processes of all session partitions together, far
// below DefaultMaxTotalClients: each session's servers are processes of their own.
const DefaultMaxSessionProcesses = 256

// GlobalPartition is the partition of pool- and agent-scoped servers, shared
// by every session. Session- and skill-scoped servers use the session id as
// their partition, so a stateful server is never shared between sessions.
const GlobalPartition = "global"

// Options configures a Pool. A nil *Options means all defaults; New copies
// the struct, so later changes by the caller have no effect.
type Options struct {
	// MaxClients caps the live (and starting) clients of each partition: the global
	// partition's shared servers, and each session's own; default 20.
	MaxClients int
	// MaxTotalClients caps the live (and starting) clients of all partitions together,
	// the bound on processes however many sessions there are; default
	// DefaultMaxTotalClients.
	MaxTotalClients int
	// MaxSessionProcesses caps the stdio servers (processes) of all partitions but the
	// global one together, however many sessions there are: past it a Get in such a partition
	// fails at once with ErrPoolExhausted naming pool.max_session_processes; default
	// DefaultMaxSessionProcesses. The global partition's servers do not count.
	MaxSessionProcesses int
	// IdleTimeout closes a client that has had no lease for this long;
	// default 5m. A negative value disables idle expiry.
	IdleTimeout time.Duration
	// KillGrace is the wait between SIGTERM and SIGKILL of a stdio server's
	// process group on close; default 2s.
	KillGrace time.Duration
	// StderrBytes sizes the stderr ring buffer kept per process; default 16 KiB.
	StderrBytes int
	// Logger receives lifecycle messages (start failures, evictions, expiry);
	// default slog.Default().
	Logger *slog.Logger
	// ClientInfo is sent in initialize; default {Name: "agentpool", Version: "dev"}.
	ClientInfo *mcp.Implementation
	// ConfigureClient, when set, is called on every mcp.Client the pool builds, before it
	// connects: the place to register custom methods such as SEP-2640's skills/list (package
	// config passes mcpcap.RegisterSkillMethods). An error fails that start.
	ConfigureClient func(*mcp.Client) error
	// ProtocolVersion is the version sent at initialize (DefaultProtocolVersion); the server
	// may answer with an older one it supports.
	ProtocolVersion string
	// Subreaper, when true, makes this process a child subreaper
	// (prctl(PR_SET_CHILD_SUBREAPER), Linux only) so that a stdio server's
	// grandchildren are reparented to this process rather than to init, and
	// the pool reaps every process of a server's group once it ends. It is
	// process-wide and never undone: orphans of other subprocesses of this
	// program are reparented here too and are not reaped by the pool. Off by
	// default; useful where init does not reap (containers) and in tests.
	Subreaper bool
	// AuthorizeUser runs the user's part of an authorization code grant (ServerConfig.Auth)
	// for the server named server: the user opens authURL, authorizes, and the redirect's
	// code, state and iss come back. Nil (a server, which has no user at hand): a server that
	// needs it fails to start with ErrNeedsLogin ("run agentpool login SERVER").
	AuthorizeUser func(ctx context.Context, server, authURL string) (*auth.AuthorizationResult, error)
	// Tokens keeps users' tokens (authorization code grant) across clients and runs: a
	// server starts with its stored token, refreshed when due, and every new token is
	// stored. Nil: tokens live as long as their client.
	Tokens TokenStore
	// DialContext, when set, opens the connections to HTTP servers and their token endpoints
	// instead of a net.Dialer; its signature is http.Transport.DialContext's. Tests serve
	// HTTP over in-memory pipes with it, which a testing/synctest bubble can wait on where it
	// cannot wait on a socket.
	DialContext func(ctx context.Context, network, addr string) (net.Conn, error)
}

func (o *Options) withDefaults() Options {
	var r Options
	if o != nil {
		r = *o
	}
	if r.MaxClients <= 0 {
		r.MaxClients = DefaultMaxClients
	}
	if r.MaxTotalClients <= 0 {
		r.MaxTotalClients = DefaultMaxTotalClients
	}
	if r.MaxSessionProcesses <= 0 {
		r.MaxSessionProcesses = DefaultMaxSessionProcesses
	}
	if r.IdleTimeout == 0 {
		r.IdleTimeout = DefaultIdleTimeout
	}
	if r.KillGrace <= 0 {
		r.KillGrace = DefaultKillGrace
	}
	if r.StderrBytes <= 0 {
		r.StderrBytes = DefaultStderrBytes
	}
	if r.Logger == nil {
		r.Logger = slog.Default()
	}
	if r.ProtocolVersion == "" {
		r.ProtocolVersion = DefaultProtocolVersion
	}
	if r.ClientInfo == nil {
		r.ClientInfo = &mcp.Implementation{Name: "agentpool", Version: "dev"}
	} else {
		ci := *r.ClientInfo
		r.ClientInfo = &ci
	}
	return r
}

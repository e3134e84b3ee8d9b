package status

import (
	"cmp"
	"context"
	"errors"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/agentpool/agentpool/gateway"
	"github.com/agentpool/agentpool/mcpcap"
)

// Paths Handler serves.
const (
	// Path is the status page.
	Path = "/"
	// HealthPath answers 200 while the process serves (liveness).
	HealthPath = "/healthz"
	// ReadyPath answers 200 once Options.Ready says so, 503 before (readiness).
	ReadyPath = "/readyz"
)

// statusViewTimeout bounds the compile of the pool's view for one status page: a page must
// come back even while a server hangs.
const statusViewTimeout = 10 * time.Second

// statusStartingTimeout bounds that compile instead while a server is still starting.
const statusStartingTimeout = time.Second

// Report is what only the host knows, for the status page: plain data, filled by the
// caller of Handler (package gateway never sees the host).
type Report struct {
	// Servers are the configured MCP servers, in the order to show them.
	Servers []Server
	// SkillDiagnostics are the skill manager's diagnostics.
	SkillDiagnostics []SkillDiagnostic
	// Reload is the last config reload's result; nil when there was none.
	Reload *Reload
	// Plugins are the plugins the host read, in its order (none: the section is left out).
	Plugins []Plugin
	// Pins are the servers whose definitions drifted from their pins, or whose pins could not
	// be read (none: the section is left out).
	Pins []PinDrift
}

// PinDrift is what one server's pin guard last saw that differs from its pins (package pin).
type PinDrift struct {
	Server, Origin, Policy string
	// Error is why its pins could not be read or written, or "".
	Error string
	// Drift is each changed, new or removed definition with its diffs, as `agentpool pins
	// list` shows it.
	Drift []string
}

// Plugin is one plugin (a Claude Code or Codex plugin folder) as the host uses it.
type Plugin struct {
	Name, Version string
	// State is "enabled", "disabled" or "not trusted" (a project's plugin, enabled, while the
	// project is not trusted).
	State string
	// Source says where it was found: "config", "marketplace:<name>", "claude-code", "codex",
	// "project".
	Source string
	// Skills and Commands count what it brings; Servers are its servers' names.
	Skills, Commands int
	Servers          []string
	// Problems are its diagnostics of warning or error severity and its servers' declaration
	// errors, each naming its file.
	Problems []string
}

// Server is one MCP server's state.
type Server struct {
	Name string
	// State is "connected", "connecting" (starting, or reconnecting), "lazy" (not connected
	// yet, by configuration), "idle", "degraded", "refused" (its required sandbox cannot be
	// applied on this kernel: it never starts, LastError says why, nothing retries it),
	// "closed" or "per session" (a session-scoped server: one per session).
	State string
	// LastError is the last connection or transport error (package connpool redacts URL
	// credentials; no env or header value is in it).
	LastError string
	// NextAttempt is the earliest reconnect while degraded.
	NextAttempt time.Time
	// PID is the process id of a stdio server's live connection, else 0.
	PID int
	// PIDs are a session-scoped server's processes, one per session that has one; its Tools
	// and Reconnects are then summed over those sessions' instances.
	PIDs []int
	// ConnectedAt is when the live connection was made (zero: none).
	ConnectedAt time.Time
	// Reconnects counts successful connections after the first.
	Reconnects int
	// Tools is how many tools the server serves now.
	Tools int
	// Calls and Errors count the server's tool calls and the failed ones, when Counted.
	Calls, Errors int64
	Counted       bool
	// Sandbox is a stdio server's sandbox and what the kernel applies of it; nil for a server
	// reached over HTTP.
	Sandbox *Sandbox
}

// SkillDiagnostic is one problem found in a skill (or a skill root, when Skill is "").
type SkillDiagnostic struct {
	// Skill is the name of the skill whose folder holds the file, or "".
	Skill string
	// Severity is "error" or "warning".
	Severity string
	// Text says what and where (file and line).
	Text string
}

// Reload is the result of the last config reload.
type Reload struct {
	At time.Time
	// OK reports whether the new config was applied.
	OK bool
	// Message says what changed, or why the reload was refused.
	Message string
}

// Options configure Handler.
type Options struct {
	// Pool is the pool's Gateway (required): its view's tools, commands and collisions are
	// shown, its sessions listed, and its Origin and token checks guard the page.
	Pool *gateway.Gateway
	// Agents returns the agents' Gateways, whose sessions are listed too; nil means none.
	Agents func() map[string]*gateway.Gateway
	// Report returns what the host knows (servers, skill diagnostics, the last reload); nil
	// means an empty report.
	Report func(ctx context.Context) Report
	// Ready returns nil once serving is ready (the config loaded, the eager servers tried, as
	// the caller decides), else why not: /readyz's 503 body and the page's badge. Nil means
	// always ready.
	Ready func() error
	// Version is shown in the page's header.
	Version string
	// Log receives the errors of writing a page; nil means the pool Gateway's logger.
	Log *slog.Logger
}

// Handler returns next with the status page at Path, HealthPath and ReadyPath in
// front of it; every other path goes to next. The page is read-only HTML (GET and HEAD) and
// passes the pool Gateway's Host, Origin and token checks, since it names servers, errors and
// sessions; /healthz and /readyz never ask for the token: load balancers probe them.
func Handler(next http.Handler, o Options) http.Handler {
	if o.Pool == nil {
		panic("status: Handler without a pool Gateway")
	}
	page := readOnly(o.Pool.OperatorOnly(http.HandlerFunc(o.serveStatus)))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case HealthPath:
			plain(w, http.StatusOK, "ok")
		case ReadyPath:
			if o.Ready != nil {
				if err := o.Ready(); err != nil {
					plain(w, http.StatusServiceUnavailable, "not ready: "+err.Error())
					return
				}
			}
			plain(w, http.StatusOK, "ready")
		case Path:
			page.ServeHTTP(w, r)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// plain answers with a short text body.
func plain(w http.ResponseWriter, status int, text string) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, text+"\n")
}

// readOnly answers 405 to a request other than GET and HEAD.
func readOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "Method Not Allowed: the status page is read-only", http.StatusMethodNotAllowed)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (o Options) serveStatus(w http.ResponseWriter, r *http.Request) {
	page := o.collect(r.Context())
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	// Nothing of the page runs or loads anything: no script at all, styles inline.
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	if err := renderStatus(w, page); err != nil {
		cmp.Or(o.Log, o.Pool.Logger()).Error("status page", "err", err)
	}
}

// collect gathers one page: the host's report, the pool's view and every Gateway's sessions.
func (o Options) collect(ctx context.Context) *statusPage {
	p := &statusPage{Version: o.Version, Now: time.Now(), Ready: true}
	if o.Ready != nil {
		if err := o.Ready(); err != nil {
			p.Ready, p.NotReady = false, err.Error()
		}
	}
	if o.Report != nil {
		p.Report = o.Report(ctx)
	}
	var starting []string
	for _, s := range p.Report.Servers {
		if s.State == string(mcpcap.StateConnecting) {
			starting = append(starting, s.Name)
		}
	}
	timeout := statusViewTimeout
	if len(starting) > 0 {
		timeout = statusStartingTimeout // the compile waits for them: the page need not
	}
	vctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// What a client sees: the newest session's view (the pool's, with that session's own
	// servers), else the pool's.
	v, id, err := o.Pool.ClientView(vctx)
	p.ViewOf = id[:min(len(id), gateway.SessionIDPrefix)]
	switch {
	case err != nil && len(starting) > 0 && errors.Is(err, context.DeadlineExceeded):
		p.ViewErr = "not compiled yet: it waits for servers still starting: " + strings.Join(starting, ", ") + " (reload the page once they are up)"
	case err != nil:
		p.ViewErr = err.Error()
	default:
		p.fromView(v, p.Report.SkillDiagnostics)
	}
	p.Sessions = o.Pool.SessionInfos()
	if o.Agents != nil {
		agents := o.Agents()
		for _, name := range slices.Sorted(maps.Keys(agents)) {
			p.Sessions = append(p.Sessions, agents[name].SessionInfos()...)
		}
	}
	return p
}

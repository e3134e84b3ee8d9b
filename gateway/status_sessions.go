package gateway

import (
	"cmp"
	"context"
	"log/slog"
	"net/http"
	"slices"
	"time"

	"github.com/agentpool/agentpool/view"
)

// SessionIDPrefix is how many characters of a session id the status page shows: enough to
// tell sessions apart, never the id itself, which is the bearer of the session.
const SessionIDPrefix = 8

// SessionInfo describes one live session for the status page.
type SessionInfo struct {
	// ID is the session id's first SessionIDPrefix characters.
	ID string
	// Client and ClientVersion are the clientInfo sent at initialize ("" before it).
	Client, ClientVersion string
	// Started is when the session was opened.
	Started time.Time
	// Scope is "session" for a session of the pool's path (it sees the pool's view and its own
	// servers), or the name of the agent whose view the session sees.
	Scope string
	// User is the subject of the OAuth token that opened the session ("" without OAuth).
	User string
	// Calls counts the session's tools/call requests answered so far.
	Calls int64
}

// OperatorOnly returns next behind the checks the operators' routes pass (the status page,
// /metrics): the Host and Origin checks and the static server token, never a user's token.
func (g *Gateway) OperatorOnly(next http.Handler) http.Handler { return g.operatorChecks(next) }

// Logger is the logger g logs to: Options.Logger, or one that discards when that is nil.
func (g *Gateway) Logger() *slog.Logger { return g.log }

// ClientView returns what a client of g sees now: the view of the session opened last (the
// Gateway's scope with that session's own servers) and that session's id, or the view of the
// Gateway's scope and "" when no session is live. ctx bounds the compile.
func (g *Gateway) ClientView(ctx context.Context) (*view.View, string, error) {
	scope := g.opts.Scope
	if id := g.newestSession(); id != "" {
		scope.SessionID = id
	}
	v, err := g.cache.Get(ctx, scope)
	return v, scope.SessionID, err
}

// newestSession returns the id of the session opened last, or "" when there is none.
func (g *Gateway) newestSession() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var newest *session
	for _, s := range g.sessions {
		if newest == nil || s.started.After(newest.started) {
			newest = s
		}
	}
	if newest == nil {
		return ""
	}
	return newest.id
}

// SessionInfos returns the live sessions, the oldest first. It takes the Gateway's lock once
// and does no I/O.
func (g *Gateway) SessionInfos() []SessionInfo {
	g.mu.Lock()
	live := make([]*session, 0, len(g.sessions))
	for _, s := range g.sessions {
		live = append(live, s)
	}
	g.mu.Unlock()
	scope := cmp.Or(g.opts.Scope.AgentName, "session")
	out := make([]SessionInfo, 0, len(live))
	for _, s := range live {
		si := SessionInfo{ID: s.id[:min(len(s.id), SessionIDPrefix)], Started: s.started, Scope: scope, User: s.user, Calls: s.calls.Load()}
		if ss := s.conn(); ss != nil {
			if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil {
				si.Client, si.ClientVersion = p.ClientInfo.Name, p.ClientInfo.Version
			}
		}
		out = append(out, si)
	}
	slices.SortFunc(out, func(a, b SessionInfo) int {
		return cmp.Or(a.Started.Compare(b.Started), cmp.Compare(a.ID, b.ID))
	})
	return out
}

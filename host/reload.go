package host

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"time"

	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/ext"
)

// ReloadResult says what a Reload changed. Every list holds config keys, sorted:
// "mcp_servers.<name>", "agents.<name>", "skills", "commands".
type ReloadResult struct {
	// At is when the reload was applied.
	At time.Time
	// Added, Removed and Changed are the declarations the new config adds, drops or alters.
	Added, Removed, Changed []string
	// Restarted are the running instances a change replaced: a pool-scoped server's
	// capability (and so its process), and "<key> (session <id>)" for each live session's
	// session-scoped server, skills' servers or agent servers.
	Restarted []string
	// AtRestart are the changes that take effect only when agentpool restarts
	// ("server.addr changed: takes effect at restart").
	AtRestart []string
	// Failed are errors applying single declarations (a server that could not be built or
	// registered): the rest of the reload stands.
	Failed []string
}

// Empty reports whether the reload changed nothing at all.
func (r ReloadResult) Empty() bool {
	return len(r.Added)+len(r.Removed)+len(r.Changed)+len(r.AtRestart)+len(r.Failed) == 0
}

// Reload makes the running host follow next, a new version of the config it was built from,
// applying only what differs (see the package doc, "Reload"). next is validated whole first
// (Config.Validate, and the names Build would refuse: the same plan, checked by the same
// function): an invalid next returns the error and changes nothing. Then the reconciler
// applies the difference between the running plan and next's, the live sessions' entries
// included: a declaration that fails to apply keeps what it had and is listed in
// ReloadResult.Failed, and the rest is applied, as Build's servers that cannot start are
// degraded rather than fatal. Sessions opening or closing wait for a reload to finish.
func (h *Host) Reload(ctx context.Context, next *config.Config) (ReloadResult, error) {
	if next == nil {
		return ReloadResult{}, errors.New("reload: no config")
	}
	if err := next.Validate(); err != nil {
		return ReloadResult{}, fmt.Errorf("reload: config: %w", err)
	}
	h.reloadMu.Lock()
	defer h.reloadMu.Unlock()
	cur := h.Current()
	// The project is not read again: what it may start is what was trusted at start.
	st, err := h.newState(next, cur.Project)
	if err != nil {
		return ReloadResult{}, fmt.Errorf("reload: %w", err)
	}
	oldShared, oldSession := cur.declaredServers()
	newShared, newSession := st.declaredServers()
	h.Pool.Reserve(max(oldShared, newShared), max(oldSession, newSession)) // the old ones and the new while they change
	res := ReloadResult{At: time.Now()}
	res.AtRestart = restartNotes(cur.Config, st.Config)
	old, entries := slices.Clone(cur.plan.Entries), slices.Clone(st.plan.Entries)
	sessions := h.liveSessions()
	h.sessMu.Lock()
	for _, s := range sessions {
		old = append(old, h.sessionPlans[s.id]...)
	}
	h.sessMu.Unlock()
	for _, s := range sessions {
		entries = append(entries, h.sessionEntries(st, s.id, s.partition, s.agent)...)
	}
	// The registry's announcements wait for the whole reload: a server removed and another
	// added reach each session as one change, so it compiles and tells its client once.
	defer h.Registry.Hold()()
	out := h.reconcile(ctx, st, old, entries, false, func(applied []*Entry, caps map[Key]ext.Capability) {
		// Published before the registry changes, so a view compiled for the new
		// registrations reads the new definitions (an agent's tool filter).
		h.publish(st.with(sessionless(applied), caps))
	})
	h.publish(st.with(sessionless(out.applied), out.caps))
	h.Pool.Reserve(newShared, newSession)
	h.sessMu.Lock()
	for _, s := range sessions {
		if len(h.partitions[s.id]) > 0 {
			h.sessionPlans[s.id] = slices.DeleteFunc(slices.Clone(out.applied), func(e *Entry) bool { return e.Key.Slot.SessionID != s.id })
		}
	}
	h.sessMu.Unlock()

	for _, key := range union(slices.Collect(maps.Keys(cur.plan.Decls)), slices.Collect(maps.Keys(st.plan.Decls))) {
		o, was := cur.plan.Decls[key]
		n, is := st.plan.Decls[key]
		switch {
		case !was:
			res.Added = append(res.Added, key)
		case !is:
			res.Removed = append(res.Removed, key)
		case !reflect.DeepEqual(o, n):
			res.Changed = append(res.Changed, key)
		}
	}
	for _, e := range out.replaced {
		if e.Restart {
			res.Restarted = append(res.Restarted, e.Owner+inSession(e))
		}
	}
	for _, f := range out.failures {
		res.Failed = append(res.Failed, f.e.Owner+inSession(f.e)+": "+f.err.Error())
		h.logger.Error("reload: not applied", "key", f.e.Owner+inSession(f.e), "err", f.err)
	}
	slices.Sort(res.Restarted)
	res.Restarted = slices.Compact(res.Restarted)
	h.logger.Info("config reloaded", "added", res.Added, "removed", res.Removed, "changed", res.Changed,
		"restarted", len(res.Restarted), "failed", len(res.Failed))
	return res, nil
}

// sessionless returns the entries that belong to no session.
func sessionless(entries []*Entry) []*Entry {
	return slices.DeleteFunc(slices.Clone(entries), func(e *Entry) bool { return e.Key.Slot.SessionID != "" })
}

// inSession is " (session <id>)" for an entry of a session, "" for others.
func inSession(e *Entry) string {
	if id := e.Key.Slot.SessionID; id != "" {
		return " (session " + id + ")"
	}
	return ""
}

// liveSession is an open session: its id, its newest pool partition, its agent ("" for a
// pool session).
type liveSession struct{ id, partition, agent string }

// liveSessions lists the open sessions, by id.
func (h *Host) liveSessions() []liveSession {
	h.sessMu.Lock()
	defer h.sessMu.Unlock()
	out := make([]liveSession, 0, len(h.partitions))
	for id, ps := range h.partitions {
		if len(ps) > 0 {
			out = append(out, liveSession{id: id, partition: ps[len(ps)-1], agent: h.sessionAgents[id]})
		}
	}
	slices.SortFunc(out, func(a, b liveSession) int { return cmp.Compare(a.id, b.id) })
	return out
}

// restartNotes lists what next changes from old that the running process cannot take.
func restartNotes(old, next *config.Config) []string {
	var notes []string
	note := func(key string, changed bool) {
		if changed {
			notes = append(notes, key+" changed: takes effect at restart")
		}
	}
	o, n := old.Server, next.Server
	note("server.addr", o.Addr != n.Addr)
	note("server.session_idle_timeout", o.SessionIdleTimeout != n.SessionIdleTimeout)
	note("server.token", o.Token != n.Token)
	note("server.max_sessions", o.MaxSessions != n.MaxSessions)
	note("server.allowed_origins", !slices.Equal(o.AllowedOrigins, n.AllowedOrigins))
	note("server.max_body", o.MaxBody != n.MaxBody)
	note("server.read_timeout", o.ReadTimeout != n.ReadTimeout)
	note("server.max_inflight", o.MaxInflight != n.MaxInflight)
	note("server.max_connections", o.MaxConnections != n.MaxConnections)
	note("server.stateless", o.Stateless != n.Stateless)
	note("server.auth", !reflect.DeepEqual(o.Auth, n.Auth))
	note("pool", old.Pool != next.Pool)
	note("extensions.max_composition_depth", old.Extensions.MaxCompositionDepth != next.Extensions.MaxCompositionDepth)
	return notes
}

// union returns the names in a or b, sorted, each once.
func union(a, b []string) []string {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}

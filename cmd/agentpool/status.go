package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/gateway"
	"github.com/agentpool/agentpool/host"
	"github.com/agentpool/agentpool/mcpcap"
	"github.com/agentpool/agentpool/plugin"
	"github.com/agentpool/agentpool/skill"
	"github.com/agentpool/agentpool/view"
)

// statusOptions are the status page's options for serve (gateway.WithStatus): the pool and
// agents' Gateways, what the host knows (statusReport) and readiness. Ready turns true once
// every eager pool server (not lazy) was tried and none is degraded (unless
// server.ready_when_degraded): tryEager starts now and ends when they were, or with ctx. serve
// tried no server before its first session until then; trying them at start also makes the
// first client's wait shorter. watchServers says on w when a server degrades or recovers.
func statusOptions(ctx context.Context, h *host.Host, pool *gateway.Gateway, routes *gateway.Routes, rl *reloader, m *gateway.Metrics, w io.Writer) gateway.StatusOptions {
	var tried atomic.Bool
	servers := func() []*mcpcap.Cap {
		servers := h.Current().Servers
		for _, caps := range agentServers(h, routes.Agents()) {
			servers = append(servers, caps...)
		}
		return servers
	}
	go watchServers(ctx, h, servers, w)
	go func() { tryEager(ctx, servers()); tried.Store(true) }()
	lenient := h.Current().Config.Server.ReadyWhenDegraded
	ready := func() error {
		var degraded []string
		for _, c := range servers() {
			if st := c.Status(); !lenient && !c.Config().Lazy && st.State == mcpcap.StateDegraded {
				degraded = append(degraded, st.Name)
			}
		}
		if !tried.Load() {
			return errors.New("the eager servers are still being tried")
		} else if len(degraded) > 0 {
			return fmt.Errorf("degraded: %s (server.ready_when_degraded: true serves regardless)", strings.Join(degraded, ", "))
		}
		return nil
	}
	return gateway.StatusOptions{
		Pool:   pool,
		Agents: routes.AgentGateways,
		Report: func(context.Context) gateway.StatusReport {
			r := statusReport(h, routes.Agents(), m.ServerCalls)
			r.Reload = rl.statusPage()
			return r
		},
		Ready:   ready,
		Version: version,
	}
}

// statusPage is the last reload's outcome as the status page shows it; nil when serve
// follows no config file or tried no reload yet.
func (r *reloader) statusPage() *gateway.ReloadStatus {
	if r == nil {
		return nil
	}
	last := r.f.Last()
	if last.At.IsZero() {
		return nil
	}
	s := &gateway.ReloadStatus{At: last.At, OK: last.OK}
	switch {
	case !last.OK:
		s.Message = last.File + " refused, the running configuration kept: " + strings.Join(last.Errors, "; ")
	case last.Result.Empty():
		s.Message = last.File + " (" + last.Trigger + "): nothing changed"
	default:
		res := last.Result
		var parts []string
		for _, p := range []struct {
			what string
			keys []string
		}{{"added", res.Added}, {"removed", res.Removed}, {"changed", res.Changed}, {"failed", res.Failed}, {"at restart", res.AtRestart}} {
			if len(p.keys) > 0 {
				parts = append(parts, p.what+": "+strings.Join(p.keys, ", "))
			}
		}
		s.Message = last.File + " (" + last.Trigger + ") applied; " + strings.Join(parts, "; ")
	}
	return s
}

// tryEager lists the tools of every server not configured lazy, concurrently, which connects
// it (or, failing that, degrades it): what a first session's compile would do.
func tryEager(ctx context.Context, servers []*mcpcap.Cap) {
	var wg sync.WaitGroup
	for _, c := range servers {
		if c.Config().Lazy {
			continue
		}
		wg.Go(func() { _, _ = c.Tools(ctx) })
	}
	wg.Wait()
}

// watchServers prints the CLI's one-line warning on w for each server of servers() that
// degrades (fails at start, or cannot reconnect), and one line when it recovers, checking at
// every change the pool's view announces (a server degrading or recovering announces its
// tools changed), until ctx ends. It also probes each degraded eager server when its next
// attempt is due: a degraded server recovers only when asked, and a replica kept out of a load
// balancer by /readyz would otherwise never be asked.
func watchServers(ctx context.Context, h *host.Host, servers func() []*mcpcap.Cap, w io.Writer) {
	degraded := map[string]bool{} // by name: a reload's new instance of a degraded server is it
	changes := h.Registry.Changes(ctx, ext.Scope{})
	probed := make(chan struct{}, 1)
	probing := false
	var lastProbe time.Time
	for {
		var due []*mcpcap.Cap
		var next time.Time
		for _, c := range servers() {
			switch st := c.Status(); {
			case st.State == mcpcap.StateDegraded && !degraded[st.Name]:
				degraded[st.Name] = true
				fmt.Fprintf(w, "agentpool: warning: %s\n", summary(view.Problem{Capability: st.Name, What: "capability", Err: st.LastError}))
				fallthrough
			case st.State == mcpcap.StateDegraded && !c.Config().Lazy:
				due = append(due, c)
				if next.IsZero() || st.NextAttempt.Before(next) {
					next = st.NextAttempt
				}
			case st.State == mcpcap.StateConnected && degraded[st.Name]:
				delete(degraded, st.Name)
				fmt.Fprintf(w, "agentpool: %s: recovered\n", st.Name)
			}
		}
		timer := time.NewTimer(max(time.Until(next), time.Until(lastProbe.Add(time.Second)))) // at most one probe a second
		if probing || len(due) == 0 {
			timer.Stop() // nothing to probe, or a probe running
		}
		select {
		case _, ok := <-changes:
			if !ok {
				return // the timer, unreferenced, is collected
			}
		case <-probed:
			probing, lastProbe = false, time.Now()
		case <-timer.C:
			probing = true
			go func() { tryEager(ctx, due); probed <- struct{}{} }()
		}
		timer.Stop()
	}
}

// serverCounts returns a server's tool calls and failed calls, and whether they are counted.
type serverCounts func(server string) (calls, errs int64, ok bool)

// statusReport is what the host knows for the status page: each pool server's status (lazy
// ones not yet connected as "lazy"), each session-scoped server as "per session" (one
// connection per client session), the skill manager's diagnostics with the skill whose
// folder holds the file. counts, when set, fills in each server's calls and errors.
func statusReport(h *host.Host, agents []string, counts serverCounts) gateway.StatusReport {
	var r gateway.StatusReport
	st := h.Current()
	cfg, servers, skillMgr := st.Config, st.Servers, st.Skills
	status := func(label string, c *mcpcap.Cap) gateway.ServerStatus {
		st := c.Status()
		s := gateway.ServerStatus{Name: label, State: string(st.State), LastError: st.LastError, PID: st.PID,
			ConnectedAt: st.ConnectedAt, Reconnects: st.Reconnects, NextAttempt: st.NextAttempt, Tools: st.Tools}
		if st.State == mcpcap.StateIdle && c.Config().Lazy {
			s.State = "lazy"
		}
		if counts != nil {
			s.Calls, s.Errors, s.Counted = counts(st.Name)
		}
		return s
	}
	for _, c := range servers {
		r.Servers = append(r.Servers, status(c.Status().Name, c))
	}
	for _, name := range cfg.MCPServers.Names() {
		if cfg.MCPServers[name].Scope == mcpcap.ScopeSession {
			s := gateway.ServerStatus{Name: name, State: "per session"}
			for _, c := range h.SessionServers(name) { // summed over the sessions' instances
				st := c.Status()
				if st.PID != 0 {
					s.PIDs = append(s.PIDs, st.PID)
				}
				s.Tools, s.Reconnects = s.Tools+st.Tools, s.Reconnects+st.Reconnects
			}
			if counts != nil {
				s.Calls, s.Errors, s.Counted = counts(name) // summed over every session's instance
			}
			r.Servers = append(r.Servers, s)
		}
	}
	byAgent := agentServers(h, agents)
	for _, a := range agents {
		for _, c := range byAgent[a] {
			r.Servers = append(r.Servers, status("agents."+a+"."+c.Status().Name, c))
		}
	}
	skills := skillMgr.Skills()
	for _, d := range skillMgr.Diagnostics() {
		sd := gateway.SkillDiagnostic{Severity: string(d.Severity), Text: d.Path + ": " + d.Message}
		if d.Line > 0 {
			sd.Text = fmt.Sprintf("%s:%d: %s", d.Path, d.Line, d.Message)
		}
		for _, s := range skills {
			if d.Path == s.Path || strings.HasPrefix(d.Path, s.Dir+string(filepath.Separator)) {
				sd.Skill = s.Name
				break
			}
		}
		r.SkillDiagnostics = append(r.SkillDiagnostics, sd)
	}
	r.Plugins = pluginStatuses(h, skills)
	return r
}

// pluginStatuses is the status page's plugins section: each plugin the host read, what it
// brings now (its skills in the skill manager, its commands in its command source) and its
// problems.
func pluginStatuses(h *host.Host, skills []*skill.Skill) []gateway.PluginStatus {
	var out []gateway.PluginStatus
	for _, p := range h.Plugins().List {
		st := gateway.PluginStatus{Name: p.Name, Version: p.Version, Source: p.Source, State: "disabled",
			Servers: p.Servers.Names(), Problems: p.Problems}
		switch {
		case p.Used():
			st.State = "enabled"
		case p.Enabled && p.Untrusted:
			st.State = "not trusted"
		}
		for _, d := range p.Diagnostics {
			if d.Severity != plugin.SeverityDebug {
				st.Problems = append(slices.Clip(st.Problems), d.String())
			}
		}
		if p.Used() {
			for _, s := range skills {
				if s.Namespace == p.Name {
					st.Skills++
				}
			}
			st.Commands = pluginCommandCount(h, p.Name)
		}
		out = append(out, st)
	}
	return out
}

// pluginCommandCount is how many commands the used plugin name's command source lists.
func pluginCommandCount(h *host.Host, name string) int {
	for _, c := range h.Registry.Visible(ext.Scope{}) {
		if cr, ok := c.(ext.CommandResource); ok && c.Name() == host.PluginCommandsName(name) {
			cmds, _ := cr.ListCommands(context.Background())
			return len(cmds)
		}
	}
	return 0
}

// agentServers returns the MCP servers each of agents declares of its own
// (agents.<name>.mcp_servers, registered at the agent's level for every session), by agent.
// Session-scoped ones, built per session, are not among them.
func agentServers(h *host.Host, agents []string) map[string][]*mcpcap.Cap {
	out := map[string][]*mcpcap.Cap{}
	for _, a := range agents {
		for _, reg := range h.Registry.Registrations(ext.Scope{AgentName: a}) {
			if c, ok := reg.Capability.(*mcpcap.Cap); ok && reg.Level == ext.LevelAgent {
				out[a] = append(out[a], c)
			}
		}
	}
	return out
}

// withStatus puts the status page, /healthz and /readyz in front of serve's handler.
func withStatus(ctx context.Context, h *host.Host, pool *gateway.Gateway, routes *gateway.Routes, rl *reloader, m *gateway.Metrics, handler http.Handler, w io.Writer) http.Handler {
	return gateway.WithStatus(handler, statusOptions(ctx, h, pool, routes, rl, m, w))
}

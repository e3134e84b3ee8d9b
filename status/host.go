package status

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/host"
	"github.com/agentpool/agentpool/mcpcap"
	"github.com/agentpool/agentpool/pin"
	"github.com/agentpool/agentpool/plugin"
	"github.com/agentpool/agentpool/skill"
)

// Counts returns a server's tool calls and failed calls, and whether they are counted.
type Counts func(server string) (calls, errs int64, ok bool)

// FromHost is what h knows for the status page: each pool server's status (lazy ones not yet
// connected as "lazy"), each session-scoped server as "per session" with its processes, tools
// and reconnects summed over the sessions' instances, the servers agents declare of their own,
// each stdio server the skills declare as "skill's, per session" (sandboxes shown as declared,
// ${VAR} unexpanded), the skill
// manager's diagnostics with the skill whose folder holds the file, and the plugins.
// counts, when set, fills in each server's calls and errors. It reads h.Current once.
func FromHost(h *host.Host, agents []string, counts Counts) Report {
	var r Report
	st := h.Current()
	cfg, servers, skillMgr := st.Config, st.Servers, st.Skills
	status := func(label string, c *mcpcap.Cap) Server {
		st := c.Status()
		s := Server{Name: label, State: string(st.State), LastError: st.LastError, PID: st.PID,
			ConnectedAt: st.ConnectedAt, Reconnects: st.Reconnects, NextAttempt: st.NextAttempt, Tools: st.Tools}
		if st.State == mcpcap.StateIdle && c.Config().Lazy {
			s.State = "lazy"
		}
		if counts != nil {
			s.Calls, s.Errors, s.Counted = counts(st.Name)
		}
		s.Sandbox = stdioSandbox(label, c.Config().Server.Server)
		refuse(&s)
		return s
	}
	for _, c := range servers {
		r.Servers = append(r.Servers, status(c.Status().Name, c))
	}
	for _, name := range cfg.MCPServers.Names() {
		if cfg.MCPServers[name].Scope == mcpcap.ScopeSession {
			s := Server{Name: name, State: "per session", Sandbox: stdioSandbox(name, st.Sandboxed(name, cfg.MCPServers[name]))}
			for _, c := range h.SessionServers(name) { // summed over the sessions' instances
				s.Sandbox = stdioSandbox(name, c.Config().Server.Server) // with its default filled in
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
	byAgent := AgentServers(h, agents)
	for _, a := range agents {
		for _, c := range byAgent[a] {
			r.Servers = append(r.Servers, status("agents."+a+"."+c.Status().Name, c))
		}
	}
	for _, sk := range st.SkillServers() {
		r.Servers = append(r.Servers, Server{Name: sk.Name, State: "skill's, per session", Sandbox: stdioSandbox(sk.Name, sk.Server)})
	}
	paths := st.WrittenSandboxPaths()
	for i := range r.Servers {
		r.Servers[i].Sandbox.asWritten(paths)
	}
	skills := skillMgr.Skills()
	for _, d := range skillMgr.Diagnostics() {
		sd := SkillDiagnostic{Severity: string(d.Severity), Text: d.Path + ": " + d.Message}
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
	r.Pins = pinDrift(h)
	return r
}

// pluginStatuses is the status page's plugins section: each plugin the host read, what it
// brings now (its skills in the skill manager, its commands in its command source) and its
// problems.
func pluginStatuses(h *host.Host, skills []*skill.Skill) []Plugin {
	var out []Plugin
	for _, p := range h.Plugins().List {
		st := Plugin{Name: p.Name, Version: p.Version, Source: p.Source, State: "disabled",
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

// AgentServers returns the MCP servers each of agents declares of its own
// (agents.<name>.mcp_servers, registered at the agent's level for every session), by agent.
// Session-scoped ones, built per session, are not among them.
func AgentServers(h *host.Host, agents []string) map[string][]*mcpcap.Cap {
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

// pinDrift returns the drift the host's pin guards last saw, by server.
func pinDrift(h *host.Host) []PinDrift {
	var out []PinDrift
	for _, sd := range h.PinDrift() {
		p := PinDrift{Server: sd.Server, Origin: sd.Origin, Policy: string(sd.Mode)}
		if sd.Err != nil {
			p.Error = sd.Err.Error()
		}
		for _, d := range sd.Drift {
			p.Drift = append(p.Drift, pin.FormatDrift(d))
		}
		out = append(out, p)
	}
	return out
}

// refuse shows a server whose required sandbox this kernel cannot apply as what it is, a
// failure no retry mends: State "refused", the one-line reason as its LastError and no next
// attempt.
func refuse(s *Server) {
	if s.Sandbox == nil || s.Sandbox.Refused == "" || s.State == string(mcpcap.StateClosed) {
		return
	}
	s.State, s.LastError, s.NextAttempt = "refused", s.Sandbox.Refused, time.Time{}
}

package host

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"time"

	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/mcpcap"
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
// (Config.Validate, the names Build would refuse): an invalid next returns the error and
// changes nothing. Then nothing is rolled back: a declaration that fails to apply is listed in
// ReloadResult.Failed and the rest is applied, as Build's servers that cannot start are
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
	merged, err := h.mergeProject(next)
	if err != nil {
		return ReloadResult{}, fmt.Errorf("reload: %w", err)
	}
	merged, plugins := withPlugins(merged, h.readPlugins(next))
	if err := checkReserved(merged, h.Project.Trusted()); err != nil {
		return ReloadResult{}, fmt.Errorf("reload: %w", err)
	}
	// The registry's announcements wait for the whole reload: a server removed and another
	// added reach each session as one change, so it compiles and tells its client once.
	defer h.Registry.Hold()()
	r := &reload{h: h, ctx: context.WithoutCancel(ctx), old: h.Config, next: merged, sessions: h.liveSessions()}
	r.res.At = time.Now()
	r.restartNotes()
	skillsChanged := !reflect.DeepEqual(r.old.Skills, merged.Skills) || !slices.Equal(h.plugins.skills, plugins.skills)
	commandsChanged := !reflect.DeepEqual(r.old.Commands, merged.Commands) ||
		r.old.Skills.Watch != merged.Skills.Watch || r.old.Skills.Debounce != merged.Skills.Debounce
	allowedChanged := !slices.Equal(r.old.Extensions.AllowedCommands, merged.Extensions.AllowedCommands)
	oldPlugins := h.plugins
	h.Config, h.plugins = merged, plugins // the new servers and managers are built from them
	if skillsChanged {
		r.skills()
	}
	if commandsChanged {
		r.commands()
	}
	r.pluginCommands(oldPlugins, commandsChanged)
	if skillsChanged || allowedChanged {
		// The sessions' skills' servers are made by a factory holding the manager and the
		// allowlist (skillServerFactory): new ones for every live session.
		r.sessionSkillServers()
	}
	r.servers()
	r.agents(skillsChanged || allowedChanged)
	for _, l := range []*[]string{&r.res.Added, &r.res.Removed, &r.res.Changed, &r.res.Restarted} {
		slices.Sort(*l)
	}
	h.logger.Info("config reloaded", "added", r.res.Added, "removed", r.res.Removed, "changed", r.res.Changed,
		"restarted", len(r.res.Restarted), "failed", len(r.res.Failed))
	return r.res, nil
}

// mergeProject returns next with a trusted project's servers added, as Build adds them
// (withProjectServers; merged into next, not into the running config, which has them
// already and lacks the edit): the project is not read again, so what it may start is what was
// trusted at start; an untrusted project's servers are never added.
func (h *Host) mergeProject(next *config.Config) (*config.Config, error) {
	p := h.Project
	if !p.Trusted() || p.Config == nil {
		return next, nil
	}
	saved, savedShadowed := h.projectServers, p.Shadowed
	h.projectServers, p.Shadowed = nil, nil
	merged, err := h.withProjectServers(next, p)
	if err != nil {
		h.projectServers, p.Shadowed = saved, savedShadowed
	}
	return merged, err
}

// checkReserved refuses the names Build's checkNames would: a reload may not do what Build
// refuses.
func checkReserved(c *config.Config, projectTrusted bool) error {
	reserved := map[string]string{"skills": "the skill manager", "commands": "the command files",
		skillServers: "the skills' servers of each session", projectCommands: "the project's command files"}
	agentReserved := []string{agentSkills, agentSkillServers}
	var errs []error
	for _, name := range c.MCPServers.Names() {
		if what, ok := reserved[name]; ok {
			errs = append(errs, fmt.Errorf("mcp_servers.%s: name %q is reserved for %s", name, name, what))
		}
	}
	for _, a := range c.Agents.Names() {
		for _, name := range c.Agents[a].MCPServers.Names() {
			if _, ok := reserved[name]; ok || slices.Contains(agentReserved, name) {
				errs = append(errs, fmt.Errorf("agents.%s.mcp_servers.%s: name %q is reserved", a, name, name))
			}
		}
	}
	return errors.Join(errs...)
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

// reload is one Reload in progress.
type reload struct {
	h         *Host
	ctx       context.Context
	old, next *config.Config
	sessions  []liveSession
	res       ReloadResult
}

func (r *reload) fail(key string, err error) {
	r.res.Failed = append(r.res.Failed, key+": "+err.Error())
	r.h.logger.Error("reload: not applied", "key", key, "err", err)
}

// restartNotes lists what the new config changes that the running process cannot take.
func (r *reload) restartNotes() {
	note := func(key string, changed bool) {
		if changed {
			r.res.AtRestart = append(r.res.AtRestart, key+" changed: takes effect at restart")
		}
	}
	o, n := r.old.Server, r.next.Server
	note("server.addr", o.Addr != n.Addr)
	note("server.session_idle_timeout", o.SessionIdleTimeout != n.SessionIdleTimeout)
	note("server.token", o.Token != n.Token)
	note("server.max_sessions", o.MaxSessions != n.MaxSessions)
	note("server.allowed_origins", !slices.Equal(o.AllowedOrigins, n.AllowedOrigins))
	note("server.max_body", o.MaxBody != n.MaxBody)
	note("server.read_timeout", o.ReadTimeout != n.ReadTimeout)
	note("server.stateless", o.Stateless != n.Stateless)
	note("server.auth", !reflect.DeepEqual(o.Auth, n.Auth))
	note("pool", r.old.Pool != r.next.Pool)
	note("extensions.max_composition_depth", r.old.Extensions.MaxCompositionDepth != r.next.Extensions.MaxCompositionDepth)
}

// close closes c, a capability the reload replaced or could not register, bounded as the
// registry bounds each capability's Close (ext.DefaultCloseTimeout): a server that stopped
// answering must not hold the reload, and with it every session opening or closing, for as
// long as its own call timeout while its unsubscribes go unanswered.
func (r *reload) close(c ext.Capability) error {
	ctx, cancel := context.WithTimeout(r.ctx, ext.DefaultCloseTimeout)
	defer cancel()
	return c.Close(ctx)
}

// swap replaces the registration named name in (level, slot) with c (nil: removes it) and
// closes the old capability. It reports whether there was one.
func (r *reload) swap(level ext.ScopeLevel, slot ext.Scope, name string, c ext.Capability, opts ...ext.RegisterOption) (bool, error) {
	old := r.find(level, slot, name)
	if old != nil {
		if err := r.h.Registry.Unregister(level, slot, name); err != nil && !errors.Is(err, ext.ErrNotFound) {
			return true, err
		}
		if ss, ok := old.(*sessionSkills); ok {
			// Only the skills' servers: closing a sessionSkills ends the session's whole pool
			// partition, its other servers included.
			old = ss.Servers
		}
		if err := r.close(old); err != nil {
			r.h.logger.Warn("reload: close replaced capability", "name", name, "err", err)
		}
	}
	if c == nil {
		return old != nil, nil
	}
	if err := r.h.Registry.Register(c, level, slot, opts...); err != nil {
		_ = r.close(c)
		return old != nil, err
	}
	return old != nil, nil
}

// replaceServer is swap for an MCP server pooled in partition: between closing the old
// capability and registering c, the old one's pooled client is retired (connpool.Pool.Retire),
// so its process ends now rather than after pool.idle_timeout, and c — even when its
// declaration differs only in what the pool does not fingerprint (prefix, allow_tools) —
// starts a new one. A client that other leases hold (another declaration with the same
// command) ends at their last release.
func (r *reload) replaceServer(level ext.ScopeLevel, slot ext.Scope, name, partition string, c ext.Capability) (bool, error) {
	old, _ := r.find(level, slot, name).(*mcpcap.Cap)
	had, err := r.swap(level, slot, name, nil)
	if old != nil {
		r.h.Pool.Retire(old.Config().Server, partition)
	}
	if err != nil || c == nil {
		return had, err
	}
	_, err = r.swap(level, slot, name, c)
	return had, err
}

// find returns the capability named name registered exactly at (level, slot), or nil.
func (r *reload) find(level ext.ScopeLevel, slot ext.Scope, name string) ext.Capability {
	for _, reg := range r.h.Registry.Registrations(slot) {
		if reg.Level == level && reg.Capability.Name() == name && reg.Slot == slot {
			return reg.Capability
		}
	}
	return nil
}

// skills rebuilds the pool's skill manager over the new skills section (its roots are fixed
// at creation) and puts it in place of the old one.
func (r *reload) skills() {
	h := r.h
	oldSkills, oldRoots := h.Skills, h.userSkillRoots
	parts, err := buildSkills(r.ctx, h)
	if err != nil {
		h.Skills, h.userSkillRoots = oldSkills, oldRoots
		r.fail("skills", err)
		return
	}
	if _, err := r.swap(ext.LevelPool, ext.Scope{}, "skills", parts[0].cap, parts[0].opts...); err != nil {
		r.fail("skills", err)
		return
	}
	r.res.Changed = append(r.res.Changed, "skills")
}

// commands rebuilds the user's command-file source over the new commands section.
func (r *reload) commands() {
	h := r.h
	old := h.Commands
	parts, err := buildCommands(r.ctx, h)
	if err != nil {
		h.Commands = old
		r.fail("commands", err)
		return
	}
	if _, err := r.swap(ext.LevelPool, ext.Scope{}, "commands", parts[0].cap, parts[0].opts...); err != nil {
		r.fail("commands", err)
		return
	}
	r.res.Changed = append(r.res.Changed, "commands")
}

// sessionSkillServers gives every live session a new "skill-servers" from the current
// skill manager, in the session's partition, closing the old one's servers (not the
// partition: the session's other servers stay).
func (r *reload) sessionSkillServers() {
	for _, s := range r.sessions {
		slot := ext.Scope{SessionID: s.id}
		old, _ := r.find(ext.LevelSession, slot, skillServers).(*sessionSkills)
		if old == nil {
			continue
		}
		ss := &sessionSkills{pool: r.h.Pool, partition: old.partition, forget: old.forget}
		ss.Servers = r.h.Skills.NewServers(skillServers, r.h.skillServerFactory(ss, old.partition))
		if err := r.h.Registry.Unregister(ext.LevelSession, slot, skillServers); err != nil {
			r.fail(skillServers+" (session "+s.id+")", err)
			continue
		}
		_ = r.close(old.Servers)
		if err := r.h.Registry.Register(ss, ext.LevelSession, slot, localOrigin); err != nil {
			_ = r.close(ss.Servers)
			r.fail(skillServers+" (session "+s.id+")", err)
			continue
		}
		r.res.Restarted = append(r.res.Restarted, skillServers+" (session "+s.id+")")
	}
}

// servers applies mcp_servers: pool-scoped ones are replaced in the pool's slot; the
// session-scoped ones are recorded for new sessions and replaced (or removed, or added) in
// every live session, each in its own partition.
func (r *reload) servers() {
	h := r.h
	oldS, newS := r.old.MCPServers, r.next.MCPServers
	var sessionNames []string
	var pool []*mcpcap.Cap
	for _, c := range h.Servers {
		if s, ok := newS[c.Name()]; ok && s.Scope != mcpcap.ScopeSession && reflect.DeepEqual(oldS[c.Name()], s) {
			pool = append(pool, c) // unchanged: keeps its capability, its process, its pid
		}
	}
	for _, name := range union(oldS.Names(), newS.Names()) {
		o, wasThere := oldS[name]
		n, isThere := newS[name]
		key := "mcp_servers." + name
		switch {
		case wasThere && isThere && reflect.DeepEqual(o, n):
			if n.Scope == mcpcap.ScopeSession {
				sessionNames = append(sessionNames, name)
			}
			continue
		case !isThere:
			r.res.Removed = append(r.res.Removed, key)
		case !wasThere:
			r.res.Added = append(r.res.Added, key)
		default:
			r.res.Changed = append(r.res.Changed, key)
		}
		// The old instance goes, wherever it ran.
		if wasThere && o.Scope != mcpcap.ScopeSession {
			if _, err := r.replaceServer(ext.LevelPool, ext.Scope{}, name, connpool.GlobalPartition, nil); err != nil {
				r.fail(key, err)
			}
		}
		if wasThere && o.Scope == mcpcap.ScopeSession && (!isThere || n.Scope != mcpcap.ScopeSession) {
			r.eachPoolSession(key, name, nil)
		}
		if !isThere {
			continue
		}
		if n.Scope == mcpcap.ScopeSession {
			sessionNames = append(sessionNames, name)
			r.eachPoolSession(key, name, &n)
			continue
		}
		c, err := h.newServer(name, n, connpool.GlobalPartition)
		if err == nil {
			_, err = r.swap(ext.LevelPool, ext.Scope{}, name, c)
		}
		if err != nil {
			r.fail(key, err)
			continue
		}
		pool = append(pool, c)
		if wasThere && o.Scope != mcpcap.ScopeSession {
			r.res.Restarted = append(r.res.Restarted, key)
		}
	}
	slices.SortFunc(pool, func(a, b *mcpcap.Cap) int { return cmp.Compare(a.Name(), b.Name()) })
	h.Servers, h.sessionServers = pool, sessionNames
}

// eachPoolSession puts a new instance of the session-scoped server name (spec; nil removes
// it) in every live session (an agent's sessions too: OpenAgentSession opens a pool session
// first), closing the one it had.
func (r *reload) eachPoolSession(key, name string, spec *decl.Server) {
	for _, s := range r.sessions {
		slot := ext.Scope{SessionID: s.id}
		var c ext.Capability
		if spec != nil {
			m, err := r.h.newServer(name, *spec, s.partition)
			if err != nil {
				r.fail(key+" (session "+s.id+")", err)
				continue
			}
			c = m
		}
		had, err := r.replaceServer(ext.LevelSession, slot, name, s.partition, c)
		if err != nil {
			r.fail(key+" (session "+s.id+")", err)
			continue
		}
		if had && spec != nil {
			r.res.Restarted = append(r.res.Restarted, key+" (session "+s.id+")")
		}
	}
}

// agents applies the agents section: an agent added is built, one removed is unregistered and
// closed with its live sessions' agent servers (the gateway ends those sessions), one changed
// is rebuilt and its live sessions get new agent servers. When rebuildSkilled (the pool's
// skills or extensions.allowed_commands changed), each agent with skill folders of its own is
// rebuilt too: its manager scans the pool's roots, and its sessions' skills' servers are made
// by a factory holding the allowlist.
func (r *reload) agents(rebuildSkilled bool) {
	h := r.h
	oldA, newA := r.old.Agents, r.next.Agents
	for _, name := range union(oldA.Names(), newA.Names()) {
		o, wasThere := oldA[name]
		n, isThere := newA[name]
		key := "agents." + name
		same := wasThere && isThere && reflect.DeepEqual(o, n)
		if same && !(rebuildSkilled && len(n.Skills.Dirs) > 0) {
			continue
		}
		switch {
		case !isThere:
			r.res.Removed = append(r.res.Removed, key)
		case !wasThere:
			r.res.Added = append(r.res.Added, key)
		case !same:
			r.res.Changed = append(r.res.Changed, key)
		}
		if wasThere {
			r.closeSlot(ext.Scope{AgentName: name}, connpool.GlobalPartition, o, n, isThere)
		}
		if !isThere {
			h.setAgent(name, nil)
			for _, s := range r.sessions {
				if s.agent == name {
					r.closeSlot(ext.Scope{SessionID: s.id, AgentName: name}, s.partition, o, n, false)
				}
			}
			continue
		}
		a, parts, err := h.buildAgent(name, n)
		for _, p := range parts {
			if err == nil {
				if err = h.Registry.Register(p.cap, p.level, p.slot, p.opts...); err == nil {
					continue
				}
			}
			_ = r.close(p.cap)
		}
		if err != nil {
			r.fail(key, err)
			h.setAgent(name, nil)
			continue
		}
		h.setAgent(name, a)
		// Views of the agent compile with its definition (its tool filter), which no
		// registration carries: say it changed, now that the new one is in place.
		h.Registry.TouchAgent(name)
		for _, s := range r.sessions {
			if s.agent != name {
				continue
			}
			r.closeSlot(ext.Scope{SessionID: s.id, AgentName: name}, s.partition, o, n, wasThere)
			if err := h.registerAgentSession(r.ctx, a, s.id, s.partition); err != nil {
				r.fail(key+" (session "+s.id+")", err)
				continue
			}
			r.res.Restarted = append(r.res.Restarted, key+" (session "+s.id+")")
		}
	}
}

// setAgent records a as agent name (nil: forgets it).
func (h *Host) setAgent(name string, a *Agent) {
	h.agentsMu.Lock()
	defer h.agentsMu.Unlock()
	if a == nil {
		delete(h.agents, name)
		return
	}
	if h.agents == nil {
		h.agents = map[string]*Agent{}
	}
	h.agents[name] = a
}

// closeSlot unregisters and closes every capability registered at the agent level in slot.
// An MCP server among them that the agent's next declaration (n, when kept) drops or changes
// from its old one (o) has its pooled client in partition retired, as replaceServer does;
// one declared the same is rebuilt on the process it had.
func (r *reload) closeSlot(slot ext.Scope, partition string, o, n config.Agent, kept bool) {
	for _, reg := range r.h.Registry.Registrations(slot) {
		if reg.Level != ext.LevelAgent || reg.Slot != slot {
			continue
		}
		name := reg.Capability.Name()
		if _, ok := reg.Capability.(*mcpcap.Cap); ok {
			spec, still := n.MCPServers[name]
			if !kept || !still || !reflect.DeepEqual(o.MCPServers[name], spec) {
				if _, err := r.replaceServer(ext.LevelAgent, slot, name, partition, nil); err != nil {
					r.fail("agents."+slot.AgentName+"."+name, err)
				}
				continue
			}
		}
		if _, err := r.swap(ext.LevelAgent, slot, name, nil); err != nil {
			r.fail("agents."+slot.AgentName+"."+name, err)
		}
	}
}

// union returns the names in a or b, sorted, each once.
func union(a, b []string) []string {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}

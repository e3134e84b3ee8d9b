package host

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/mcpcap"
	"github.com/agentpool/agentpool/skill"
)

// OpenSession registers, at the session's scope, the session's own instances of what is
// stateful: every session-scoped server (its own process, its own state) and, as one
// capability named "skill-servers" (a skill.Servers), the MCP servers the skills declare,
// listed as "<skill>__<tool>" and started when first listed. The skills themselves (catalogue,
// load_skill, commands) stay the pool's skill manager, shared by every session. A trusted
// project's skills are among them; their servers must be ones the user trusted (see the
// package doc, "Trust"). It returns the open session: its agents are made by
// Session.NewAgent, and Session.Close (or CloseSession, or Registry.CloseScope) ends it: its
// processes end then, not after the pool's idle timeout.
//
// Each call leases its servers in a pool partition of its own ("<session id>#<n>"): a session
// id used again after its close must never find the closed session's process and state.
//
// A session whose session-scoped stdio servers would pass pool.max_session_processes (counting
// the places of the sessions opened, whether or not their servers have started) is refused
// with a *ext.LimitError (errors.Is ext.ErrLimit) naming the key. On error, the
// capabilities this call registered are unregistered and closed again, and no Session is
// returned.
func (h *Host) OpenSession(ctx context.Context, sessionID string) (*Session, error) {
	h.reloadMu.RLock() // a session opens with one config, the one before a reload or after
	defer h.reloadMu.RUnlock()
	partition, err := h.openSession(ctx, sessionID, "")
	if err != nil {
		return nil, err
	}
	return &Session{h: h, id: sessionID, partition: partition}, nil
}

// OpenSessionFunc returns OpenSession (OpenAgentSession of agent, when agent is not "") in
// the form gateway.Options.OpenSession and acp.Options.OpenSession take, for a server that
// opens a session per client and ends it by id with CloseSession.
func (h *Host) OpenSessionFunc(agent string) func(ctx context.Context, sessionID string) error {
	return func(ctx context.Context, sessionID string) error {
		var err error
		if agent == "" {
			_, err = h.OpenSession(ctx, sessionID)
		} else {
			_, err = h.OpenAgentSession(ctx, sessionID, agent)
		}
		return err
	}
}

// openSession opens session sessionID (of agent, "" for none) and returns its pool partition:
// the session's entries (sessionEntries) are applied to it, all or none.
func (h *Host) openSession(ctx context.Context, sessionID, agent string) (string, error) {
	if sessionID == "" {
		return "", fmt.Errorf("open session: empty session id")
	}
	st := h.Current()
	partition := sessionID + "#" + strconv.FormatUint(h.sessionSeq.Add(1), 10)
	// Recorded before anything can close the session's capability (a concurrent CloseScope),
	// which forgets it again.
	h.sessMu.Lock()
	if h.partitions == nil {
		h.partitions = map[string][]string{}
		h.sessionAgents = map[string]string{}
		h.sessionPlans = map[string][]*Entry{}
	}
	h.partitions[sessionID] = append(h.partitions[sessionID], partition)
	if agent != "" {
		h.sessionAgents[sessionID] = agent
	}
	h.sessMu.Unlock()
	if err := h.Pool.ReserveSessionProcesses(partition, sessionProcesses(st, agent)...); err != nil {
		h.forgetPartition(sessionID, partition)
		if key, ok := ext.LimitKey(err); ok {
			err = &ext.LimitError{Key: key, Err: err}
		}
		return "", fmt.Errorf("open session %q: %w", sessionID, err)
	}
	out := h.reconcile(ctx, st, nil, h.sessionEntries(st, sessionID, partition, agent), true, nil)
	if len(out.failures) > 0 {
		var errs []error
		for _, f := range out.failures {
			errs = append(errs, f.err)
		}
		h.forgetPartition(sessionID, partition)
		// Gives back the places reserved; what reconcile started it has closed again.
		errs = append(errs, h.Pool.ClosePartition(context.WithoutCancel(ctx), partition))
		return "", fmt.Errorf("open session %q: %w", sessionID, errors.Join(errs...))
	}
	h.sessMu.Lock()
	if len(h.partitions[sessionID]) > 0 {
		h.sessionPlans[sessionID] = out.applied
	}
	h.sessMu.Unlock()
	return partition, nil
}

// sessionProcesses are the pool configs of the session-scoped stdio servers a session (of
// agent, "" for none) starts: it reserves their places under pool.max_session_processes as
// it opens, in one step with the count of the live sessions', so that sessions opening at
// once cannot pass the cap together. Refused at initialize, its client learns why; admitted,
// its servers have their places. Its skills' servers start later, and the pool's cap holds
// them: they never take a place held for its servers.
func sessionProcesses(st *State, agent string) []connpool.ServerConfig {
	var out []connpool.ServerConfig
	add := func(name string, spec decl.Server) {
		if spec.Command == "" {
			return
		}
		if cfg, err := mcpcap.ConfigOf(name, spec); err == nil {
			out = append(out, cfg.Server) // one that does not convert fails to start: no place
		}
	}
	for _, name := range st.sessionServers {
		add(name, st.Config.MCPServers[name])
	}
	if a := st.agents[agent]; a != nil {
		for _, name := range a.sessionServers {
			add(name, a.Config.MCPServers[name])
		}
	}
	return out
}

// sessionEntries are the registrations of session id, leasing in pool partition: at the
// session's slot, the skills' servers ("skill-servers", made from the pool's skill manager)
// and every session-scoped server; for a session of agent, at the session's slot for the
// agent, the skills' servers of the agent's own skills ("agent-skill-servers") and the
// agent's session-scoped servers.
func (h *Host) sessionEntries(st *State, id, partition, agent string) []*Entry {
	slot := ext.Scope{SessionID: id}
	allowed := st.Config.Extensions.AllowedCommands
	out := []*Entry{{Key: Key{ext.LevelSession, slot, skillServers}, Owner: skillServers, Source: skillServers,
		Decl: sessionSkillsDecl{partition, allowed}, After: []Key{skillsKey}, Restart: true,
		Opts: []ext.RegisterOption{localOrigin},
		start: func(_ context.Context, b *batch) (ext.Capability, error) {
			ss := &sessionSkills{pool: h.Pool, partition: partition, forget: func() { h.forgetPartition(id, partition) }}
			m, userRoots := b.poolSkills()
			ss.Servers = m.NewServers(skillServers, h.skillServerFactory(b.st, m, userRoots, ss, partition))
			return ss, nil
		},
		// Only the skills' servers: closing a sessionSkills ends the session's whole pool
		// partition, its other servers included.
		stop: func(ctx context.Context, c ext.Capability) error {
			return h.closeBounded(ctx, c.(*sessionSkills).Servers)
		}}}
	for _, name := range st.sessionServers {
		key := "mcp_servers." + name
		spec := st.Config.MCPServers[name]
		out = append(out, h.serverEntry(Key{ext.LevelSession, slot, name}, key, key, st.sandboxed(name, st.hiddenText(spec)), partition, pinsOf(st, name, spec)))
	}
	a := st.agents[agent]
	if a == nil {
		return out
	}
	aslot := ext.Scope{SessionID: id, AgentName: agent}
	owner := "agents." + agent
	if ownsSkills(st.Config, agent) {
		own := Key{ext.LevelAgent, ext.Scope{AgentName: agent}, agentSkills}
		out = append(out, &Entry{Key: Key{ext.LevelAgent, aslot, agentSkillServers}, Owner: owner, Source: owner + ".skills",
			Decl: sessionSkillsDecl{partition, allowed}, After: []Key{skillsKey, own}, Restart: true,
			Opts: []ext.RegisterOption{localOrigin},
			start: func(_ context.Context, b *batch) (ext.Capability, error) {
				m, ok := b.cap(own).(*skill.Manager)
				if !ok {
					return nil, fmt.Errorf("agent %q has no skill manager", agent)
				}
				pool, userRoots := b.poolSkills()
				ss := &sessionSkills{pool: h.Pool, partition: partition}
				ss.Servers = m.NewServers(agentSkillServers, h.skillServerFactory(b.st, pool, userRoots, ss, partition))
				return ss, nil
			},
			stop: func(ctx context.Context, c ext.Capability) error {
				return h.closeBounded(ctx, c.(*sessionSkills).Servers)
			}})
	}
	for _, name := range a.sessionServers {
		spec := a.Config.MCPServers[name]
		out = append(out, h.serverEntry(Key{ext.LevelAgent, aslot, name}, owner, owner+".mcp_servers."+name, st.userSandboxed(st.hiddenText(spec)), partition, agentPinsOf(st, spec)))
	}
	return out
}

// sessionSkillsDecl is what a session's skills' servers are made from, besides the skill
// manager (their After).
type sessionSkillsDecl struct {
	Partition string
	Allowed   []string // extensions.allowed_commands, held by the factory
}

// CloseSession ends a session opened with OpenSession: it closes the capabilities of its scope
// (Registry.CloseScope) and ends its pool partitions, so that when it returns every process
// the session started has ended and been reaped (unless ctx ended first). A later OpenSession
// of the same id starts fresh. Closing a session that is not open closes nothing.
func (h *Host) CloseSession(ctx context.Context, sessionID string) error {
	h.reloadMu.RLock() // a reload replacing the session's servers finishes first
	defer h.reloadMu.RUnlock()
	return h.closeSession(ctx, sessionID)
}

// closeSession is CloseSession, with the caller holding reloadMu.
func (h *Host) closeSession(ctx context.Context, sessionID string) error {
	if sessionID == "" {
		return fmt.Errorf("close session: empty session id")
	}
	// Taken before the scope closes: closing "skill-servers" forgets its partition, and the
	// partitions must still be ended again below, after every capability of the scope has
	// released its clients.
	h.sessMu.Lock()
	partitions := h.partitions[sessionID]
	delete(h.partitions, sessionID)
	delete(h.sessionAgents, sessionID)
	delete(h.sessionPlans, sessionID)
	h.sessMu.Unlock()
	err := h.Registry.CloseScope(ctx, ext.Scope{SessionID: sessionID})
	for _, p := range partitions {
		err = errors.Join(err, h.Pool.ClosePartition(ctx, p))
	}
	return err
}

// forgetPartition drops partition from the partitions recorded for sessionID, once the session's
// "skill-servers" has closed (by CloseSession or Registry.CloseScope): a host whose sessions are
// closed by CloseScope must not keep one entry for each.
func (h *Host) forgetPartition(sessionID, partition string) {
	h.sessMu.Lock()
	defer h.sessMu.Unlock()
	ps := slices.DeleteFunc(h.partitions[sessionID], func(p string) bool { return p == partition })
	if len(ps) == 0 {
		delete(h.partitions, sessionID)
		delete(h.sessionAgents, sessionID)
		delete(h.sessionPlans, sessionID)
	} else {
		h.partitions[sessionID] = ps
	}
}

// SessionServers returns the live instances of the session-scoped server name of the config's
// mcp_servers, one per open session, ordered by session id.
func (h *Host) SessionServers(name string) []*mcpcap.Cap {
	var out []*mcpcap.Cap
	for _, s := range h.liveSessions() {
		for _, r := range h.Registry.Registrations(ext.Scope{SessionID: s.id}) {
			if c, ok := r.Capability.(*mcpcap.Cap); ok && r.Level == ext.LevelSession && r.Slot.SessionID == s.id && r.Capability.Name() == name {
				out = append(out, c)
			}
		}
	}
	return out
}

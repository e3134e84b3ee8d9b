package host

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/mcpcap"
	"github.com/agentpool/agentpool/skill"
)

// ErrUnknownAgent is the error for an agent name the config's agents section does not hold.
var ErrUnknownAgent = errors.New("unknown agent")

// agentSkills and agentSkillServers name an agent's own skill manager (at the agent's
// static slot) and its skills' servers in a session (at the session's slot for the agent).
const (
	agentSkills       = "agent-skills"
	agentSkillServers = "agent-skill-servers"
)

// Agent is one agent of the config's agents section as the host built it. Its capabilities
// are registered at ext.LevelAgent for its name, so the view of Scope{SessionID, AgentName}
// sees the pool's, the session's and the agent's.
type Agent struct {
	// Name is the agent's name, its key under agents.
	Name string
	// Config is the agent's section.
	Config config.Agent
	// Skills is the agent's skill manager ("agent-skills"): its own skill folders, then every
	// root of the pool's manager, which it replaces in the agent's view (see Include). Nil
	// when the agent names no skill folder: it sees the pool's manager.
	Skills *skill.Manager

	h              *Host
	sessionServers []string // its session-scoped servers, built per session
}

// Agent returns the agent called name, or an error wrapping ErrUnknownAgent that lists the
// agents there are.
func (h *Host) Agent(name string) (*Agent, error) {
	h.agentsMu.Lock()
	a, ok := h.agents[name]
	known := slices.Sorted(maps.Keys(h.agents))
	h.agentsMu.Unlock()
	if ok {
		return a, nil
	}
	if len(known) == 0 {
		return nil, fmt.Errorf("%w %q: the config has no agents section", ErrUnknownAgent, name)
	}
	return nil, fmt.Errorf("%w %q (agents: %v)", ErrUnknownAgent, name, known)
}

// Include reports whether a registration belongs in the agent's view: everything its scope
// sees, except, when the agent has skill folders of its own, the pool's skill manager and the
// session's skills' servers, which its own manager and servers replace (they hold the same
// skills and more). A view offers one catalogue and one load_skill; two managers would offer
// two, and the pool's could not load the agent's skills. Pass it as view.Options.Include.
func (a *Agent) Include(r ext.Registration) bool {
	if a.Skills == nil {
		return true
	}
	switch {
	case r.Level == ext.LevelPool && r.Capability.Name() == "skills":
		// By name, which Build reserves for the pool's manager: a reload replaces the manager.
		return false
	case r.Level == ext.LevelSession && r.Capability.Name() == skillServers:
		return false
	}
	return true
}

// AllowsTool reports whether the agent's view keeps the tool of that final name
// (config.Agent.AllowTools, DenyTools). Pass it as the view's tool filter.
func (a *Agent) AllowsTool(name string) bool { return a.Config.AllowsTool(name) }

// buildAgents builds each agent's own capabilities, in name order, for its static slot: its
// pool-scoped servers (shared by every session of the agent) and, when it has skill folders,
// its skill manager. Its session-scoped servers are recorded for OpenAgentSession.
func buildAgents(_ context.Context, h *Host) ([]part, error) {
	var parts []part
	h.agents = make(map[string]*Agent, len(h.Config.Agents))
	for _, name := range h.Config.Agents.Names() {
		a, built, err := h.buildAgent(name, h.Config.Agents[name])
		parts = append(parts, built...)
		if a != nil {
			h.agents[name] = a
		}
		if err != nil {
			return parts, err
		}
	}
	return parts, nil
}

// buildAgent builds agent name's static parts (see buildAgents). On error it still returns
// the Agent and what it built, for the caller to close.
func (h *Host) buildAgent(name string, cfg config.Agent) (*Agent, []part, error) {
	var parts []part
	a := &Agent{Name: name, Config: cfg, h: h}
	slot := ext.Scope{AgentName: name}
	for _, s := range cfg.MCPServers.Names() {
		spec := cfg.MCPServers[s]
		if spec.Scope == mcpcap.ScopeSession {
			a.sessionServers = append(a.sessionServers, s)
			continue
		}
		c, err := h.newServer(s, spec, connpool.GlobalPartition)
		if err != nil {
			return a, parts, err
		}
		parts = append(parts, part{key: "agents." + name + ".mcp_servers." + s, cap: c, level: ext.LevelAgent, slot: slot})
	}
	if len(cfg.Skills.Dirs) == 0 {
		return a, parts, nil
	}
	// The pool's roots after the agent's own: its plain ones (reported missing by the pool's
	// manager already), and the plugins' skill folders namespaced as there, so that no plugin
	// skill is a bare name in the agent's catalogue (Roots lists the namespaced folders last).
	poolRoots, nsRoots := h.Skills.Roots(), h.Skills.NamespacedRoots()
	m, err := skill.NewManager(&skill.Options{
		Name:            agentSkills,
		Roots:           cfg.Skills.Dirs,
		DefaultRoots:    poolRoots[:len(poolRoots)-len(nsRoots)],
		NamespacedRoots: nsRoots,
		Watch:           h.Config.Skills.Watching(h.opts.Watch),
		Debounce:        h.Config.Skills.Debounce,
		MaxFolders:      h.Config.Skills.MaxFolders,
		Logger:          h.logger,
		Matcher:         h.opts.matcher(),
	})
	if err != nil {
		return a, parts, fmt.Errorf("agents.%s.skills: %w", name, err)
	}
	a.Skills = m
	parts = append(parts, part{key: "agents." + name + ".skills", cap: m, level: ext.LevelAgent, slot: slot, opts: []ext.RegisterOption{localOrigin}})
	return a, parts, nil
}

// OpenAgentSession opens a session as OpenSession does and registers, at the session's slot
// for the agent, the agent's session-scoped servers and, when it has its own skills, their
// servers ("agent-skill-servers"), all in the session's pool partition. CloseSession ends
// them with the session. On error, nothing this call registered stays.
func (h *Host) OpenAgentSession(ctx context.Context, sessionID, agent string) (err error) {
	h.reloadMu.RLock()
	defer h.reloadMu.RUnlock()
	a, err := h.Agent(agent)
	if err != nil {
		return fmt.Errorf("open session %q: %w", sessionID, err)
	}
	partition, err := h.openSession(ctx, sessionID)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, h.closeSession(context.WithoutCancel(ctx), sessionID))
		}
	}()
	h.sessMu.Lock()
	if h.sessionAgents == nil {
		h.sessionAgents = map[string]string{}
	}
	h.sessionAgents[sessionID] = agent
	h.sessMu.Unlock()
	return h.registerAgentSession(ctx, a, sessionID, partition)
}

// registerAgentSession registers, at the session's slot for agent a, its skills' servers
// (when it has skills of its own) and its session-scoped servers, in partition.
func (h *Host) registerAgentSession(ctx context.Context, a *Agent, sessionID, partition string) error {
	slot := ext.Scope{SessionID: sessionID, AgentName: a.Name}
	register := func(c ext.Capability, opts ...ext.RegisterOption) error {
		if err := h.Registry.Register(c, ext.LevelAgent, slot, opts...); err != nil {
			_ = c.Close(ctx)
			return fmt.Errorf("open session %q of agent %q: %w", sessionID, a.Name, err)
		}
		return nil
	}
	if a.Skills != nil {
		ss := &sessionSkills{pool: h.Pool, partition: partition}
		ss.Servers = a.Skills.NewServers(agentSkillServers, h.skillServerFactory(ss, partition))
		if err := register(ss, localOrigin); err != nil {
			return err
		}
	}
	for _, name := range a.sessionServers {
		c, err := h.newServer(name, a.Config.MCPServers[name], partition)
		if err != nil {
			return err
		}
		if err := register(c); err != nil {
			return err
		}
	}
	return nil
}

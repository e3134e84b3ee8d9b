package host

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/mcpcap"
	"github.com/agentpool/agentpool/skill"
)

// ErrUnknownAgent is the error for an agent name the config's agents section does not hold.
var ErrUnknownAgent = errors.New("unknown agent")

// agentSkills and agentSkillServers name an agent's own skill manager (at the agent's
// static slot) and its skills' servers in a session (at the session's slot for the agent);
// agentDefinition names the registration of its definition (at its static slot).
const (
	agentSkills       = "agent-skills"
	agentSkillServers = "agent-skill-servers"
	agentDefinition   = "agent-definition"
)

// Agent is one agent of the config's agents section as the host built it. Its capabilities
// are registered at ext.LevelAgent for its name, so the view of Scope{SessionID, AgentName}
// sees the pool's, the session's and the agent's. An Agent is never changed once the host
// returned it: a reload that changes the agent makes a new one.
type Agent struct {
	// Name is the agent's name, its key under agents.
	Name string
	// Config is the agent's section.
	Config config.Agent
	// Skills is the agent's skill manager ("agent-skills"): its own skill folders, then every
	// root of the pool's manager, which it replaces in the agent's view (see Include). Nil
	// when the agent names no skill folder and has the pool's catalogue budget
	// (config.Config.CatalogueBudget): it sees the pool's manager. An agent with a budget of
	// its own has a manager of its own, over the pool's roots when it names no folder.
	Skills *skill.Manager

	sessionServers []string // its session-scoped servers, built per session
}

// Agent returns the agent called name, or an error wrapping ErrUnknownAgent that lists the
// agents there are.
func (h *Host) Agent(name string) (*Agent, error) { return h.Current().agent(name) }

// agent returns the agent called name (see Host.Agent).
func (st *State) agent(name string) (*Agent, error) {
	if a, ok := st.agents[name]; ok {
		return a, nil
	}
	if len(st.agents) == 0 {
		return nil, fmt.Errorf("%w %q: the config has no agents section", ErrUnknownAgent, name)
	}
	return nil, fmt.Errorf("%w %q (agents: %v)", ErrUnknownAgent, name, slices.Sorted(maps.Keys(st.agents)))
}

// Include reports whether a registration belongs in the agent's view: everything its scope
// sees, except, when the agent has a skill manager of its own (Skills), the pool's skill
// manager and the session's skills' servers, which its own manager and servers replace (they
// hold the same skills and more). A view offers one catalogue and one load_skill; two managers would offer
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

// AllowsTool reports whether the agent's view keeps the tool going by names
// (config.Agent.AllowTools, DenyTools). Pass it as the view's tool filter.
func (a *Agent) AllowsTool(names ...string) bool { return a.Config.AllowsTool(names...) }

// agentDef is an agent's definition as a registration ("agent-definition", at the agent's
// static slot). What an agent's views show depends on its definition (its tool filter) and
// not only on what is registered: the definition being a registration too, a changed one is
// replaced as any entry is, which gives every scope of the agent a new stamp and tells its
// sessions (ToolsChanged) to compile their view again. It offers no tool.
type agentDef struct{ agent string }

var _ ext.ToolProvider = (*agentDef)(nil)

func (*agentDef) Name() string                                   { return agentDefinition }
func (*agentDef) Close(context.Context) error                    { return nil }
func (*agentDef) Tools(context.Context) ([]ext.ToolEntry, error) { return nil, nil }
func (*agentDef) CallTool(_ context.Context, call *ext.ToolCall) (*ext.ToolResult, error) {
	return nil, fmt.Errorf("tool %q: %w", call.Name, ext.ErrNotFound)
}

// agentSkillsDecl is what an agent's own skill manager is made from (besides the pool's
// manager, its After).
type agentSkillsDecl struct {
	Dirs       []string
	Watch      bool
	Debounce   time.Duration
	MaxFolders int
	Budget     int
}

// ownsSkills reports whether agent has a skill manager of its own: it names skill folders, or
// its catalogue budget is not the pool's.
func ownsSkills(cfg *config.Config, agent string) bool {
	return len(cfg.Agents[agent].Skills.Dirs) > 0 || cfg.CatalogueBudget(agent) != cfg.Skills.Budget()
}

// planAgents declares each agent, in name order: its definition, its pool-scoped servers
// (shared by every session of the agent) and, when it has skill folders or a catalogue budget
// other than the pool's, its skill manager,
// all at its static slot. Its session-scoped servers are recorded for OpenAgentSession.
func planAgents(pl *planner) error {
	h, st := pl.h, pl.st
	for _, name := range st.Config.Agents.Names() {
		cfg := st.Config.Agents[name]
		owner := "agents." + name
		pl.declare(owner, cfg)
		a := &Agent{Name: name, Config: cfg}
		st.agents[name] = a
		slot := ext.Scope{AgentName: name}
		pl.add(&Entry{Key: Key{ext.LevelAgent, slot, agentDefinition}, Owner: owner, Source: owner, Decl: cfg,
			start: func(context.Context, *batch) (ext.Capability, error) { return &agentDef{agent: name}, nil }})
		for _, s := range cfg.MCPServers.Names() {
			spec := cfg.MCPServers[s]
			if spec.Scope == mcpcap.ScopeSession {
				a.sessionServers = append(a.sessionServers, s)
				continue
			}
			pl.add(h.serverEntry(Key{ext.LevelAgent, slot, s}, owner, owner+".mcp_servers."+s, st.userSandboxed(st.hiddenText(spec)), connpool.GlobalPartition, agentPinsOf(st, spec)))
		}
		if !ownsSkills(st.Config, name) {
			continue
		}
		budget := st.Config.CatalogueBudget(name)
		d := agentSkillsDecl{Dirs: cfg.Skills.Dirs, Watch: st.Config.Skills.Watching(h.opts.watching()),
			Debounce: st.Config.Skills.Debounce, MaxFolders: st.Config.Skills.MaxFolders, Budget: budget}
		pl.add(&Entry{Key: Key{ext.LevelAgent, slot, agentSkills}, Owner: owner, Source: owner + ".skills", Decl: d,
			After: []Key{skillsKey}, Opts: []ext.RegisterOption{localOrigin},
			start: func(_ context.Context, b *batch) (ext.Capability, error) {
				// The pool's roots after the agent's own: its plain ones (reported missing by the
				// pool's manager already), and the plugins' skill folders namespaced as there, so
				// that no plugin skill is a bare name in the agent's catalogue (Roots lists the
				// namespaced folders last).
				pool, _ := b.poolSkills()
				poolRoots, nsRoots := pool.Roots(), pool.NamespacedRoots()
				m, err := skill.NewManager(&skill.Options{
					Name:            agentSkills,
					Roots:           d.Dirs,
					DefaultRoots:    poolRoots[:len(poolRoots)-len(nsRoots)],
					NamespacedRoots: nsRoots,
					Watch:           d.Watch,
					Debounce:        d.Debounce,
					MaxFolders:      d.MaxFolders,
					CatalogueBudget: d.Budget,
					Logger:          h.logger,
					Matcher:         h.opts.matcher(),
				})
				if err != nil {
					return nil, fmt.Errorf("agents.%s.skills: %w", name, err)
				}
				return m, nil
			}})
	}
	return nil
}

// OpenAgentSession opens a session as OpenSession does and registers, at the session's slot
// for the agent, the agent's session-scoped servers and, when it has its own skills, their
// servers ("agent-skill-servers"), all in the session's pool partition. CloseSession ends
// them with the session. Its Session's Scope names the agent, and Session.NewAgent makes that
// agent. On error, nothing this call registered stays.
func (h *Host) OpenAgentSession(ctx context.Context, sessionID, agent string) (*Session, error) {
	h.reloadMu.RLock()
	defer h.reloadMu.RUnlock()
	if _, err := h.Agent(agent); err != nil {
		return nil, fmt.Errorf("open session %q: %w", sessionID, err)
	}
	partition, err := h.openSession(ctx, sessionID, agent)
	if err != nil {
		return nil, err
	}
	return &Session{h: h, id: sessionID, agent: agent, partition: partition}, nil
}

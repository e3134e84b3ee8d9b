package host

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/view"
)

// DefaultAgentName is the name Session.NewAgent gives the agent of a session that is not an
// agent's (OpenSession) when agent.Options.Scope.AgentName is empty.
const DefaultAgentName = agent.DefaultAgentName

// ErrSessionNotOpen reports work at the scope of a session that the host did not open (or has
// closed) while the config gives sessions capabilities of their own (session-scoped servers,
// the skills' servers): the session would see none of them.
var ErrSessionNotOpen = errors.New("session not open")

// Session is a session the host opened (OpenSession, OpenAgentSession): its own servers are
// registered at its scope until Close. Its methods are safe for concurrent use.
type Session struct {
	h         *Host
	id        string
	agent     string // OpenAgentSession's agent, "" for none
	partition string // the pool partition its open made: it is open while the host records it

	closeOnce sync.Once
	closeErr  error
}

// ID returns the session's id.
func (s *Session) ID() string { return s.id }

// Scope returns the session's scope: {SessionID}, and for an agent's session (OpenAgentSession)
// {SessionID, AgentName}. view.Compile of this scope shows what the session sees.
func (s *Session) Scope() ext.Scope { return ext.Scope{SessionID: s.id, AgentName: s.agent} }

// Close ends the session as CloseSession does: when it returns, every process the session
// started has ended. Close is idempotent: later calls return the first call's error. A
// session already ended otherwise (CloseSession, Registry.CloseScope) is not closed again, and
// a session opened since under the same id is not this one: Close leaves it open.
func (s *Session) Close(ctx context.Context) error {
	s.closeOnce.Do(func() {
		h := s.h
		h.reloadMu.RLock()
		defer h.reloadMu.RUnlock()
		h.sessMu.Lock()
		open := slices.Contains(h.partitions[s.id], s.partition)
		h.sessMu.Unlock()
		if open {
			s.closeErr = h.closeSession(ctx, s.id)
		}
	})
	return s.closeErr
}

// NewAgent returns an agent (agent.New) running in the session with model and opts, and fills
// in what the session knows:
//   - Registry and Scope.SessionID are the session's (opts naming another session is an error);
//   - Scope.AgentName, when empty, is the session's agent (OpenAgentSession), else
//     DefaultAgentName ("main"), which an agent of the config's agents section called "main"
//     does not lend its capabilities to: name it, or open its session with OpenAgentSession;
//     naming an agent of the config's agents section other than the session's is an error
//     (its session-scoped servers run only in a session OpenAgentSession opened for it);
//   - Cache, when nil, compiles the views as the agent of the config's agents section sees
//     them (Agent.Include, its tool filter), following reloads;
//   - Tools' unset fields are the config's: the agent's tools, under server.tools.
func (s *Session) NewAgent(model agent.Model, opts agent.Options) (*agent.Agent, error) {
	o := opts
	if o.Scope.SessionID != "" && o.Scope.SessionID != s.id {
		return nil, fmt.Errorf("agent: scope %s is not of session %q", o.Scope, s.id)
	}
	name := o.Scope.AgentName
	if name == "" {
		name = s.agent
	}
	st := s.h.Current()
	if _, ok := st.Config.Agents[name]; ok && name != s.agent {
		return nil, fmt.Errorf("agent: session %q: %q is an agent of the config's agents section and the session is not its: open its session with OpenAgentSession", s.id, name)
	}
	if name == "" {
		if _, ok := st.Config.Agents[DefaultAgentName]; ok {
			return nil, fmt.Errorf("agent: session %q: the default agent name %q is an agent of the config's agents section: set agent.Options.Scope.AgentName, or open the session with OpenAgentSession", s.id, DefaultAgentName)
		}
		name = DefaultAgentName
	}
	o.Model = model
	o.Registry = s.h.Registry
	o.Scope.SessionID, o.Scope.AgentName = s.id, name
	if o.Cache == nil {
		o.Cache = view.NewCache(s.h.Registry, &view.CacheOptions{Compile: s.h.agentViewOptions(name)})
	}
	tools := st.Config.Server.Tools
	if a, ok := st.Config.Agents[name]; ok {
		tools = a.Tools.Under(tools)
	}
	o.Tools = o.Tools.Under(tools)
	return agent.New(o)
}

// agentViewOptions are the view options of agent name's scopes: for an agent of the config's
// agents section, what it sees (Agent.Include) and its tool filter, looked up at every compile
// so that a reload's agent is used; nil for any other name.
func (h *Host) agentViewOptions(name string) *view.Options {
	if _, err := h.Agent(name); err != nil {
		return nil
	}
	return &view.Options{
		Include: func(r ext.Registration) bool {
			a, err := h.Agent(name)
			return err != nil || a.Include(r)
		},
		Tools: func(names ...string) bool {
			a, err := h.Agent(name)
			return err != nil || a.AllowsTool(names...)
		},
	}
}

// checkSession is the registry's session check (ext.Registry.SetSessionCheck): a session the
// host has not opened is an error wrapping ErrSessionNotOpen when the config gives sessions
// servers of their own, naming one of them.
func (h *Host) checkSession(sessionID string) error {
	h.sessMu.Lock()
	open := len(h.partitions[sessionID]) > 0
	h.sessMu.Unlock()
	if open {
		return nil
	}
	what := h.Current().sessionOwn()
	if what == "" {
		return nil
	}
	return fmt.Errorf("session %q: %w: %s is started per session; open the session first (host.OpenSession, or OpenAgentSession)", sessionID, ErrSessionNotOpen, what)
}

// sessionOwn names one thing that a session of st has of its own (a session-scoped server, a
// skill's servers), "" when there is none.
func (st *State) sessionOwn() string {
	if len(st.sessionServers) > 0 {
		return "mcp_servers." + st.sessionServers[0]
	}
	for name, a := range st.agents {
		if len(a.sessionServers) > 0 {
			return "agents." + name + ".mcp_servers." + a.sessionServers[0]
		}
	}
	if st.Skills != nil {
		for _, sk := range st.Skills.Skills() {
			if len(sk.Servers) > 0 {
				return fmt.Sprintf("skill %q's MCP servers", sk.Name)
			}
		}
	}
	return ""
}

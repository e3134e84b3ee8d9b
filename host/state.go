package host

import (
	"github.com/agentpool/agentpool/command"
	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/mcpcap"
	"github.com/agentpool/agentpool/skill"
)

// State is what a host runs at one moment: the configuration it follows and what Build or the
// last Reload made of it. A State is never changed once Current has returned it: a reload
// makes a new one and publishes it whole, so a reader sees one configuration and the
// capabilities made from it, never half of a reload. Hold the pointer only as long as one
// answer needs it; call Current again for the next.
type State struct {
	// Config is the configuration in use: the user's, with a trusted project's and the used
	// plugins' servers merged into mcp_servers.
	Config *config.Config
	// Skills is the skill manager (registered at pool scope as "skills"): the user's roots, a
	// trusted project's and the bundled ones (see the package doc).
	Skills *skill.Manager
	// Commands is the user's command-file source (registered at pool scope as "commands").
	Commands *command.FileSource
	// Project is the working directory's own sources, built whether or not it is trusted, and
	// used only when it is (its command files registered as "project-commands", its skill
	// roots scanned by Skills); nil when there is no project (no ProjectDir, or it is the home
	// directory).
	Project *Project
	// Servers are the pool-scoped MCP servers, in plan order (the user's, then a trusted
	// project's). It is shared by every reader: append to it (which copies) but never
	// assign to its elements.
	Servers []*mcpcap.Cap

	plan           Plan                   // what is registered for this state, sessions' entries aside
	caps           map[Key]ext.Capability // the plan's capabilities
	plugins        pluginParts            // what the used plugins add (withPlugins)
	sessionServers []string               // names of session-scoped servers, built per session
	projectServers map[string]bool        // the servers a trusted project's agentpool.yaml added
	userSkillRoots map[string]bool        // Skills' roots before a trusted project's: the user's own
	agents         map[string]*Agent      // by name
	replaced       chan struct{}          // closed when the next state is published (publish)
	next           *State                 // the next state, set before replaced is closed
}

// Current returns the state in use now. It never returns nil once Build has returned the
// host.
func (h *Host) Current() *State { return h.state.Load() }

// AgentServers returns the MCP servers the agent called name declares of its own that its
// sessions share (its mcp_servers but the scope: session ones, built per session), in plan
// order; none when the state has no such agent. The slice is the caller's; the Caps are
// shared.
func (st *State) AgentServers(name string) []*mcpcap.Cap {
	var out []*mcpcap.Cap
	for _, e := range st.plan.Entries {
		if k := e.Key; k.Level == ext.LevelAgent && k.Slot.AgentName == name && k.Slot.SessionID == "" {
			if c, ok := st.caps[k].(*mcpcap.Cap); ok {
				out = append(out, c)
			}
		}
	}
	return out
}

// Replaced returns a channel closed once the host has published a newer State (a reload, or a
// step of one): a reader that follows the host waits on it, then calls Current again. It is
// never closed for the state in use; nil (never ready) for a State no host published.
func (st *State) Replaced() <-chan struct{} { return st.replaced }

// Next returns the state published after st: nil while st is in use, never nil once
// Replaced is closed. Following Next from a state a reader last saw visits every state
// published since, in order, which Current alone may skip. A State keeps every state
// published after it reachable: a reader that follows Next keeps only the last one it
// reached, never one it has moved past.
func (st *State) Next() *State {
	select {
	case <-st.replaced:
		return st.next
	default:
		return nil
	}
}

// publish makes st the state in use and closes the replaced channel of the one it replaces.
// Its callers hold reloadMu (or, in Build, have not returned the host yet): one publish at a
// time.
func (h *Host) publish(st *State) {
	st.replaced = make(chan struct{})
	if old := h.state.Swap(st); old != nil {
		old.next = st
		close(old.replaced)
	}
}

// declaredServers counts the MCP servers the state's config declares (its mcp_servers, with a
// trusted project's and the plugins', and every agent's): shared, those in the pool's global
// partition, and perSession, the session-scoped ones each session starts. The pool reserves
// room for them (connpool.Pool.Reserve), so that every one can run at once;
// pool.max_clients bounds what sessions and skills add on top.
func (st *State) declaredServers() (shared, perSession int) {
	count := func(servers mcpcap.Servers) {
		for _, s := range servers {
			if s.Scope == mcpcap.ScopeSession {
				perSession++
			} else {
				shared++
			}
		}
	}
	count(st.Config.MCPServers)
	for _, a := range st.Config.Agents {
		count(a.MCPServers)
	}
	return shared, perSession
}

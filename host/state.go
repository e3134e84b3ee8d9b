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
}

// Current returns the state in use now. It never returns nil once Build has returned the
// host.
func (h *Host) Current() *State { return h.state.Load() }

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

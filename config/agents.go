package config

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"

	"github.com/agentpool/agentpool/exposure"
	"github.com/agentpool/agentpool/mcpcap"
)

// Agents is the agents section: by agent name, what that agent sees besides the pool's
// capabilities (DESIGN.md "Scope": a capability registered from static config is visible to
// that agent in every session). `agentpool serve` serves each at /mcp/agents/<name>, and
// `compile --agent <name>` shows its view.
type Agents map[string]Agent

// Agent is one agent of the agents section.
type Agent struct {
	// MCPServers are the agent's own servers, beside the pool's (same keys as mcp_servers; a
	// session-scoped one is started per session of the agent).
	MCPServers mcpcap.Servers `yaml:"mcp_servers"`
	// Skills holds the agent's own skill folders.
	Skills AgentSkills `yaml:"skills"`
	// AllowTools, when set, keeps only the tools of the agent's view whose final name
	// ("github__search", "load_skill") matches one of these path.Match patterns; DenyTools
	// removes those that match one of its own. Deny wins. They filter the agent's whole view,
	// the pool's tools included.
	AllowTools []string `yaml:"allow_tools"`
	DenyTools  []string `yaml:"deny_tools"`
	// Tools is how the agent's path and its run loop (chat, acp) list tools; an unset field
	// takes server.tools' (exposure.Config.Under).
	Tools exposure.Config `yaml:"tools"`
}

// AgentSkills is an agent's skills section: skill roots of its own, ahead of the pool's.
type AgentSkills struct {
	// Dirs are the agent's skill roots; watched, debounced and bounded as skills.* says.
	Dirs []string `yaml:"dirs" config:"expand,path"`
	// CatalogueBudget is the agent's skills.catalogue_budget; nil means the pool's.
	CatalogueBudget *int `yaml:"catalogue_budget"`
}

// CatalogueBudget returns the skill catalogue budget of the views of agent (the pool's when
// agent is "" or sets none): skills.catalogue_budget, as skill.Config.Budget gives it.
func (c *Config) CatalogueBudget(agent string) int {
	if a, ok := c.Agents[agent]; ok && a.Skills.CatalogueBudget != nil {
		return *a.Skills.CatalogueBudget
	}
	return c.Skills.Budget()
}

// AllowsTool reports whether a tool is in the agent's view (AllowTools, DenyTools), given
// every name it goes by: its served name and, when the tool-name rule changed it, the name
// its server lists. A deny pattern matching any of them removes it; an allow pattern matching
// any of them keeps it. Patterns are checked by Validate; one that is not valid matches
// nothing.
func (a *Agent) AllowsTool(names ...string) bool {
	if matchesAny(a.DenyTools, names) {
		return false
	}
	return a.AllowTools == nil || matchesAny(a.AllowTools, names)
}

// matchesAny reports whether a pattern of patterns matches a name of names.
func matchesAny(patterns, names []string) bool {
	for _, p := range patterns {
		for _, name := range names {
			if ok, _ := path.Match(p, name); ok {
				return true
			}
		}
	}
	return false
}

// FiltersTools reports whether AllowsTool can refuse anything.
func (a *Agent) FiltersTools() bool { return a.AllowTools != nil || len(a.DenyTools) > 0 }

// agentName is what an agent may be called: it is a path segment of /mcp/agents/<name>.
var agentName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// Names returns the agent names in sorted order.
func (as Agents) Names() []string {
	names := make([]string, 0, len(as))
	for n := range as {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Validate returns every problem of every agent, keyed under key.<name>, filling in each
// server's implied type as mcp_servers does.
func (as Agents) Validate(key string) error {
	var errs []error
	for _, name := range as.Names() {
		at := key + "." + name
		if !agentName.MatchString(name) {
			errs = append(errs, keyErrorf(at, "agent name must be letters, digits, '.', '_' or '-' (it is a URL path segment: /mcp/agents/%s)", name))
		}
		a := as[name]
		errs = append(errs, a.MCPServers.Validate(at+".mcp_servers"))
		errs = append(errs, validateTools(at+".tools", &a.Tools)...)
		for _, list := range []struct {
			key      string
			patterns []string
		}{{"allow_tools", a.AllowTools}, {"deny_tools", a.DenyTools}} {
			for i, p := range list.patterns {
				if _, err := path.Match(p, ""); err != nil {
					errs = append(errs, keyErrorf(fmt.Sprintf("%s.%s[%d]", at, list.key, i), "bad pattern %q: %v", p, err))
				}
			}
		}
		if b := a.Skills.CatalogueBudget; b != nil && *b < 0 {
			errs = append(errs, keyErrorf(at+".skills.catalogue_budget", "must not be negative (0 is no limit), got %d", *b))
		}
		for _, t := range a.AllowTools {
			if slices.Contains(a.DenyTools, t) {
				errs = append(errs, keyErrorf(at+".deny_tools", "tool %q is both allowed and denied", t))
			}
		}
		as[name] = a
	}
	return errors.Join(errs...)
}

// CheckCommands applies extensions.allowed_commands to every agent's stdio servers.
func (as Agents) CheckCommands(key string, allowed []string) error {
	var errs []error
	for _, name := range as.Names() {
		errs = append(errs, as[name].MCPServers.CheckCommands(key+"."+name+".mcp_servers", allowed))
	}
	return errors.Join(errs...)
}

// checkAgentServers reports an agent's server named like one of mcp_servers: the agent sees
// both, and one would be reachable only under a collision's name.
func (c *Config) checkAgentServers() error {
	var errs []error
	for _, name := range c.Agents.Names() {
		for _, s := range c.Agents[name].MCPServers.Names() {
			if _, ok := c.MCPServers[s]; ok {
				errs = append(errs, keyErrorf("agents."+name+".mcp_servers."+s, "server %q is already in mcp_servers, which every agent sees; give it another name", s))
			}
		}
	}
	return errors.Join(errs...)
}

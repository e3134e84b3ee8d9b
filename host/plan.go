package host

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/agentpool/agentpool/ext"
)

// Key names one registration: the level and slot it is registered at and its capability's
// name. A plan holds at most one entry per key, as the registry holds one capability.
type Key struct {
	Level ext.ScopeLevel
	Slot  ext.Scope
	Name  string
}

// Entry is one registration a Plan declares: where it goes (Key), what it is made from (Decl),
// and how to make it. Entries are values the reconciler compares; it never changes one.
type Entry struct {
	Key Key
	// Owner is the config key the entry comes from ("mcp_servers.x", "agents.a", "skills"):
	// what ReloadResult names when the entry cannot be applied.
	Owner string
	// Source is where the entry comes from, as Build's errors and the name check name it
	// ("mcp_servers.x", "agents.a.mcp_servers.s", "project commands").
	Source string
	// Decl is the fingerprint of the entry's declaration: everything its capability is made
	// from. A running capability whose entry's Decl is reflect.DeepEqual to the new entry's,
	// and none of whose After entries is replaced, is kept as it is (its process, its state).
	Decl any
	// After are the keys of entries the capability is made from (a session's skills' servers
	// are made from the pool's skill manager): replacing one of them replaces this one.
	After []Key
	// Opts are the registration's options (its origin).
	Opts []ext.RegisterOption
	// Restart says that replacing the entry restarts a running instance (a server's process):
	// ReloadResult.Restarted lists it.
	Restart bool

	// start makes the capability. It may read what the reconciliation made before it (b).
	// On error it may still return a capability, which the reconciler closes.
	start func(ctx context.Context, b *batch) (ext.Capability, error)
	// stop ends a capability the reconciler unregistered, or made and did not register because
	// an entry of its After was not applied; nil means closing it.
	stop func(ctx context.Context, c ext.Capability) error
	// handOver, when set, is called when the entry's running capability old is replaced by
	// next: it gives next old's new work and returns how to wait for old's work in flight,
	// which the reconciler lets finish in the background before it stops old. nil, or a nil
	// result, stops old at once.
	handOver func(old, next ext.Capability) (drain func(ctx context.Context) error)
}

// Plan is a declarative description of what a host registers: its entries in registration
// order (the order Visible lists them in), and its declarations by config key (what
// ReloadResult's Added, Removed and Changed compare). A Plan is made from a config by the
// kinds table and applied by the reconciler; Build applies one to an empty host, Reload the
// difference between the running one and the next.
type Plan struct {
	Entries []*Entry
	Decls   map[string]any
}

// index returns the plan's entries by key.
func (p Plan) index() map[Key]*Entry {
	out := make(map[Key]*Entry, len(p.Entries))
	for _, e := range p.Entries {
		out[e.Key] = e
	}
	return out
}

// kind is one extension kind: its section's key in the config and the function that declares
// what the section asks for. The reconciler does the rest, at Build and at every reload.
type kind struct {
	key  string // the section's key in the config file
	plan func(pl *planner) error
}

// kinds are the extension kinds the host knows, in registration order (the order Visible
// lists them in). A new kind is its own package's config struct plus one entry here (and the
// config.Config field naming its key; the package tests check both exist).
var kinds = []kind{
	{"skills", planSkills},
	{"commands", planCommands},
	{"plugins", planPlugins},
	{"mcp_servers", planServers},
	{"agents", planAgents},
}

// planner collects a plan for state st.
type planner struct {
	h    *Host
	st   *State
	plan Plan
}

// add appends e to the plan.
func (pl *planner) add(e *Entry) { pl.plan.Entries = append(pl.plan.Entries, e) }

// declare records the declaration owner (a config key) for the reload's result.
func (pl *planner) declare(owner string, decl any) {
	if pl.plan.Decls == nil {
		pl.plan.Decls = map[string]any{}
	}
	pl.plan.Decls[owner] = decl
}

// makePlan runs every kind over st, then checks the names.
func (h *Host) makePlan(st *State) (Plan, error) {
	pl := &planner{h: h, st: st}
	for _, k := range kinds {
		if err := k.plan(pl); err != nil {
			return Plan{}, fmt.Errorf("plan %s: %w", k.key, err)
		}
	}
	if err := checkNames(pl.plan, st); err != nil {
		return Plan{}, err
	}
	return pl.plan, nil
}

// reservedPool are the pool scope's names of agentpool's own, whether registered or not.
var reservedPool = map[string]bool{"skills": true, "commands": true, projectCommands: true}

// checkNames reports a capability name used twice: two capabilities of one name in a scope
// would make one of them unreachable by name. Build and Reload refuse the same plans.
func checkNames(p Plan, st *State) error {
	owner := map[string]string{}
	var errs []error
	claim := func(owner map[string]string, name, key string) {
		if first, ok := owner[name]; ok {
			msg := fmt.Sprintf("%s: name %q is already used by %s", key, name, first)
			if reservedPool[name] {
				msg += ", a name reserved for agentpool"
			}
			errs = append(errs, errors.New(msg))
			return
		}
		owner[name] = key
	}
	agentEntries := map[string][]*Entry{}
	for _, e := range p.Entries {
		switch e.Key.Level {
		case ext.LevelPool:
			claim(owner, e.Key.Name, e.Source)
		case ext.LevelAgent:
			agentEntries[e.Key.Slot.AgentName] = append(agentEntries[e.Key.Slot.AgentName], e)
		}
	}
	for _, name := range st.sessionServers {
		claim(owner, name, "mcp_servers."+name)
	}
	if key, ok := owner[skillServers]; ok {
		errs = append(errs, fmt.Errorf("%s: name %q is reserved for the skills' servers of each session", key, skillServers))
	}
	if key, ok := owner[projectCommands]; ok && !st.Project.Trusted() {
		// Reserved even while the project's command files are not registered: trusting the
		// project must not make a configured name clash.
		errs = append(errs, fmt.Errorf("%s: name %q is reserved for the project's command files", key, projectCommands))
	}
	// An agent sees the pool's names and its own: two agents may use one name.
	reserved := []string{skillServers, agentSkills, agentSkillServers, agentDefinition}
	for _, name := range st.Config.Agents.Names() {
		mine := maps.Clone(owner)
		for _, r := range reserved {
			if _, ok := mine[r]; !ok {
				mine[r] = "agentpool (reserved)"
			}
		}
		for _, e := range agentEntries[name] {
			if e.Key.Name != agentSkills && e.Key.Name != agentDefinition {
				claim(mine, e.Key.Name, e.Source)
			}
		}
		if a := st.agents[name]; a != nil {
			for _, s := range a.sessionServers {
				claim(mine, s, "agents."+name+".mcp_servers."+s)
			}
		}
	}
	return errors.Join(errs...)
}

package host

import (
	"cmp"
	"context"
	"slices"

	"github.com/agentpool/agentpool/command"
	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/mcpcap"
	"github.com/agentpool/agentpool/skill"
)

// localOrigin is the origin of the user's skill manager and command files: the user's own.
var localOrigin = ext.WithOrigin(ext.Origin{Kind: ext.OriginLocal})

// projectOrigin is the origin of a trusted project's sources.
func projectOrigin(p *Project) ext.RegisterOption {
	return ext.WithOrigin(ext.Origin{Kind: ext.OriginProject, Location: p.Dir})
}

// buildSkills builds the one skill manager of the view, "skills", over, in precedence order:
// the command line's roots, the config's, with Options.DefaultRoots the user's conventional
// ones, a trusted project's (its conventional folders and its config's skills.dirs, as
// InspectProject found them), and the bundled ones. One manager, so the model sees one
// catalogue and one load_skill, each skill once: a user's skill outranks a project's of the
// same name, and both outrank a bundled one (the loser is a diagnostic). A project skill's
// own servers are checked against what the user trusted when they are built
// (skillServerFactory).
func buildSkills(_ context.Context, h *Host) ([]part, error) {
	cfg := h.Config.Skills
	// The command line's and the config's roots are reported when missing; the others are not.
	roots := append(slices.Clone(h.opts.SkillDirs), cfg.Dirs...)
	var defaults []string
	if h.opts.DefaultRoots {
		defaults = skill.DefaultRoots("", h.opts.HomeDir)
	}
	userRoots := len(roots) + len(defaults)
	if p := h.Project; p.Trusted() {
		defaults = append(defaults, p.Skills.Roots()...)
	}
	defaults = append(defaults, h.opts.BundledSkillDirs...)
	m, err := skill.NewManager(&skill.Options{
		Roots:        roots,
		DefaultRoots: defaults,
		// A plugin's skills are named "<plugin>:<skill>": they can neither take nor lose a
		// name to the user's (package skill).
		NamespacedRoots: h.plugins.skills,
		Watch:           cfg.Watching(h.opts.Watch),
		Debounce:        cfg.Debounce,
		MaxFolders:      cfg.MaxFolders,
		Logger:          h.logger,
		Matcher:         h.opts.matcher(),
		// No Children: a skill's servers are each session's (OpenSession), not the pool's.
	})
	if err != nil {
		return nil, err
	}
	h.Skills = m
	h.userSkillRoots = map[string]bool{}
	for _, r := range m.Roots()[:userRoots] {
		h.userSkillRoots[r] = true
	}
	return []part{{key: "skills", cap: m, opts: []ext.RegisterOption{localOrigin}}}, nil
}

// buildCommands builds the command-file source over the config's roots and the default ones.
// Command files are watched as skills are (skills.watch, skills.debounce): one host follows
// both, and a separate switch has not been asked for.
func buildCommands(_ context.Context, h *Host) ([]part, error) {
	roots := slices.Clone(h.Config.Commands.Dirs)
	if h.opts.DefaultRoots {
		roots = append(roots, command.DefaultRoots("", h.opts.HomeDir)...)
	}
	fs, err := command.NewFileSource(roots, &command.FileOptions{
		Watch:    h.Config.Skills.Watching(h.opts.Watch),
		Debounce: h.Config.Skills.Debounce,
		Logger:   h.logger,
	})
	if err != nil {
		return nil, err
	}
	h.Commands = fs
	parts := []part{{key: "commands", cap: fs, opts: []ext.RegisterOption{localOrigin}}}
	if p := h.Project; p.Trusted() {
		parts = append(parts, part{key: "project commands", cap: p.Commands, opts: []ext.RegisterOption{projectOrigin(p)}})
	}
	return parts, nil
}

// buildServers builds every pool-scoped MCP server, in name order, the user's before a
// trusted project's, and records the session-scoped ones for OpenSession in the same order. A
// Cap says its own origin (remote, mcp://<name>); among servers of one origin and scope the
// one registered first keeps a tool name both list, so a project's server cannot take one
// from the user's (by a prefix naming its tools like theirs).
func buildServers(_ context.Context, h *Host) ([]part, error) {
	var parts []part
	names := h.Config.MCPServers.Names()
	slices.SortStableFunc(names, func(a, b string) int {
		return cmp.Compare(b2i(h.projectServers[a]), b2i(h.projectServers[b]))
	})
	for _, name := range names {
		spec := h.Config.MCPServers[name]
		if spec.Scope == mcpcap.ScopeSession {
			h.sessionServers = append(h.sessionServers, name)
			continue
		}
		c, err := h.newServer(name, spec, connpool.GlobalPartition)
		if err != nil {
			return parts, err
		}
		parts = append(parts, part{key: "mcp_servers." + name, cap: c})
		h.Servers = append(h.Servers, c)
	}
	return parts, nil
}

// newServer builds the configured server name in the pool partition given. Without a prefix
// key its tools are listed as ext.ToolName(name, tool), "<name>__<tool>"; prefix: "" keeps the
// server's own names.
func (h *Host) newServer(name string, spec decl.Server, partition string) (*mcpcap.Cap, error) {
	cfg, err := mcpcap.ConfigOf(name, spec)
	if err != nil {
		return nil, err
	}
	if cfg.Prefix == nil {
		prefix := ext.ToolName(name, "")
		cfg.Prefix = &prefix
	}
	return mcpcap.New(cfg, mcpcap.WithPool(h.Pool, partition), mcpcap.WithLogger(h.logger))
}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

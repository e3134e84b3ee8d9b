package host

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"time"

	"github.com/agentpool/agentpool/command"
	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/mcpcap"
	"github.com/agentpool/agentpool/plugin"
	"github.com/agentpool/agentpool/skill"
)

// PluginInfo is one plugin of the catalogue as the host sees it: what package plugin read,
// and its MCP servers parsed and named as agentpool registers them.
type PluginInfo struct {
	*plugin.Plugin
	// Servers are the plugin's MCP servers under their registered names, "<plugin>.<server>";
	// Sources says which file declares each.
	Servers mcpcap.Servers
	Sources map[string]string
	// Problems are what is wrong with its MCP declarations ("file:line:col: key: what"): a
	// server with a problem is not in Servers; the others are.
	Problems []string
	// Shadowed names its servers that are not used because a server of the user's own config
	// (or a trusted project's) has that name.
	Shadowed []string
	// Untrusted is true for a project's plugin while the project is not trusted: listed, never
	// used.
	Untrusted bool
}

// Used reports whether the plugin is in the view: enabled and, for a project's, trusted.
func (p *PluginInfo) Used() bool { return p.Enabled && !p.Untrusted }

// Plugins is what the host made of the plugins section (and of a project's): the catalogue
// and each plugin's servers.
type Plugins struct {
	// Catalog is what package plugin read: every plugin, marketplace entry and diagnostic.
	Catalog *plugin.Catalog
	// List holds every plugin of the catalogue, in its order, a project's last.
	List []*PluginInfo
	// StateErr is why the enable/disable state file could not be read: the config alone
	// decides then.
	StateErr error

	state plugin.State // the state file's choices, applied to a project's plugins too (AddProject)
}

// Used returns the plugins in the view, in order.
func (ps *Plugins) Used() []*PluginInfo {
	if ps == nil {
		return nil
	}
	var out []*PluginInfo
	for _, p := range ps.List {
		if p.Used() {
			out = append(out, p)
		}
	}
	return out
}

// untrusted returns the enabled plugins not used for want of trust (a project's).
func (ps *Plugins) untrusted() []*PluginInfo {
	if ps == nil {
		return nil
	}
	var out []*PluginInfo
	for _, p := range ps.List {
		if p.Enabled && p.Untrusted {
			out = append(out, p)
		}
	}
	return out
}

// Get returns the plugin named name, or nil.
func (ps *Plugins) Get(name string) *PluginInfo {
	if ps == nil {
		return nil
	}
	for _, p := range ps.List {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// Files returns every file and folder whose change should make a running host read its
// plugins again: the catalogue's (marketplace files, manifests, .mcp.json files, plugin
// folders), and in each plugin's folder the standard layout's places, there or not (its
// manifests, .mcp.json, skills/ and commands/), so that one added while serving is read as
// an edit of one it had. The state file is the caller's to follow (it knows the path).
func (ps *Plugins) Files() []string {
	if ps == nil || ps.Catalog == nil {
		return nil
	}
	files := slices.Clone(ps.Catalog.Files)
	for _, p := range ps.Catalog.Plugins {
		for _, rel := range []string{plugin.ClaudeManifest, plugin.CodexManifest, ".mcp.json", "skills", "commands"} {
			if f := filepath.Join(p.Dir, filepath.FromSlash(rel)); !slices.Contains(files, f) {
				files = append(files, f)
			}
		}
	}
	return files
}

// PluginOptions say where InspectPlugins finds what is not in the config.
type PluginOptions struct {
	// State is the file `agentpool plugins enable|disable` writes (plugin.StatePath); "" means
	// no state: the config alone decides.
	State string
	// HomeDir and CodexHome locate Claude Code's and Codex's installed plugins, read when the
	// config says plugins.import_installed.
	HomeDir, CodexHome string
	// Allowed is extensions.allowed_commands, held to the plugins' stdio servers as to any.
	Allowed []string
}

// InspectPlugins reads the plugins cfg names (package plugin) and parses every plugin's MCP
// declarations, as config parses an imported .mcp.json: the plugin's root variables
// (${CLAUDE_PLUGIN_ROOT} …) and the environment expanded, each server validated alone, so a
// bad one is a problem of its plugin and the others stand. It starts nothing and never
// fails: every problem is in the result.
func InspectPlugins(cfg *config.Config, opts PluginOptions) *Plugins {
	ps := &Plugins{}
	if opts.State != "" {
		ps.state, ps.StateErr = plugin.LoadState(opts.State)
	}
	ps.Catalog = plugin.Load(cfg.Plugins, plugin.Options{State: ps.state, HomeDir: opts.HomeDir, CodexHome: opts.CodexHome})
	for _, p := range ps.Catalog.Plugins {
		ps.List = append(ps.List, inspectPlugin(p, opts.Allowed))
	}
	return ps
}

// inspectPlugin parses p's MCP declarations into servers named "<plugin>.<server>".
func inspectPlugin(p *plugin.Plugin, allowed []string) *PluginInfo {
	info := &PluginInfo{Plugin: p, Servers: mcpcap.Servers{}, Sources: map[string]string{}}
	for _, src := range p.MCP {
		servers, errs := config.ParseServers(src.File, src.Data, p.Vars(), allowed)
		for _, err := range errs {
			info.Problems = append(info.Problems, err.Error())
		}
		for _, name := range servers.Names() {
			full := p.Name + "." + name
			if _, dup := info.Servers[full]; dup {
				info.Problems = append(info.Problems, fmt.Sprintf("%s: server %q is declared twice in plugin %s: the first is used", src.File, name, p.Name))
				continue
			}
			one := mcpcap.Servers{full: servers[name]}
			if err := one.Validate("mcpServers"); err != nil {
				info.Problems = append(info.Problems, fmt.Sprintf("%s: %v", src.File, err))
				continue
			}
			info.Servers[full] = one[full]
			info.Sources[full] = src.File
		}
	}
	return info
}

// pluginParts is what the used plugins add to the host: their servers are merged into the
// config (so Build and Reload treat them as any server), their skill folders become the
// skill manager's namespaced roots, their command folders one command source each.
type pluginParts struct {
	all      *Plugins
	servers  map[string]string // registered server name → its plugin
	skills   []skill.NamespacedRoot
	commands map[string][]string // plugin name → its command folders
}

// withPlugins returns base with the used plugins' servers added, and what else they bring. A
// plugin server named like one of base's is not used (PluginInfo.Shadowed): the user's own
// config wins, as it does over a project's.
func withPlugins(base *config.Config, all *Plugins) (*config.Config, pluginParts) {
	pp := pluginParts{all: all, servers: map[string]string{}, commands: map[string][]string{}}
	used := all.Used()
	if len(used) == 0 {
		return base, pp
	}
	merged := *base
	merged.MCPServers = maps.Clone(base.MCPServers)
	if merged.MCPServers == nil {
		merged.MCPServers = mcpcap.Servers{}
	}
	for _, p := range used {
		p.Shadowed = nil
		for _, name := range p.Servers.Names() {
			if _, taken := merged.MCPServers[name]; taken {
				p.Shadowed = append(p.Shadowed, name)
				continue
			}
			merged.MCPServers[name] = p.Servers[name]
			pp.servers[name] = p.Name
		}
		for _, dir := range p.SkillDirs {
			pp.skills = append(pp.skills, skill.NamespacedRoot{Namespace: p.Name, Dir: dir})
		}
		if len(p.CommandDirs) > 0 {
			pp.commands[p.Name] = slices.Clone(p.CommandDirs)
		}
	}
	return &merged, pp
}

// projectPluginSource is plugin.Plugin.Source for a plugin a project's agentpool.yaml names.
const projectPluginSource = "project"

// readPlugins reads the plugins cfg names and adds the project's (Project.Plugins): used only
// while the project is trusted, and never in place of one of the user's own of the same
// name. The project's are not read again here: what a trusted project may start is what was
// inspected (and fingerprinted) when the host was built.
func (h *Host) readPlugins(cfg *config.Config, p *Project) *Plugins {
	all := InspectPlugins(cfg, PluginOptions{State: h.opts.PluginState, HomeDir: h.opts.HomeDir,
		CodexHome: h.opts.CodexHome, Allowed: cfg.Extensions.AllowedCommands})
	all.AddProject(p, cfg.Extensions.AllowedCommands)
	return all
}

// AddProject appends the plugins of project p (Project.Plugins) to ps, the user's, as the host
// uses them: a copy of each, untrusted while p is, enabled or not as the user's state file
// says when it names it (`agentpool plugins enable|disable`), its stdio servers held to the
// user's allowed (extensions.allowed_commands), and not used when one of the user's own
// plugins has its name. Nothing happens for a nil p or one without plugins.
func (ps *Plugins) AddProject(p *Project, allowed []string) {
	if p == nil || p.Plugins == nil {
		return
	}
	all := ps
	for _, pi := range p.Plugins.List {
		mine := *pi
		mine.Untrusted = !p.Trusted()
		if on, ok := ps.state.Enabled[pi.Name]; ok {
			plug := *pi.Plugin
			plug.Enabled = on
			mine.Plugin = &plug
		}
		// The user's allowed_commands holds for a project's servers too (InspectProject
		// parsed them before knowing it).
		mine.Servers = maps.Clone(pi.Servers)
		for _, name := range mine.Servers.Names() {
			spec := mine.Servers[name]
			if err := mcpcap.CheckCommand(spec, "mcpServers."+name, allowed, ""); err != nil {
				mine.Problems = append(slices.Clip(mine.Problems), fmt.Sprintf("%s: %v", pi.Sources[name], err))
				delete(mine.Servers, name)
			}
		}
		if all.Get(pi.Name) != nil {
			plug := *mine.Plugin
			plug.Enabled = false
			mine.Plugin = &plug
			mine.Problems = append(slices.Clip(mine.Problems), fmt.Sprintf("not used: a plugin of your own is named %q", pi.Name))
		}
		all.List = append(all.List, &mine)
	}
}

// PluginCommandsName is the capability name of a used plugin's command files, "plugin:<name>".
func PluginCommandsName(pluginName string) string { return "plugin:" + pluginName }

// pluginOrigin is the origin of a plugin's skills and commands: the user's own, unless the
// plugin is a trusted project's.
func (st *State) pluginOrigin(name string) ext.RegisterOption {
	if p := st.plugins.all.Get(name); p != nil && p.Source == projectPluginSource {
		return projectOrigin(st.Project)
	}
	return localOrigin
}

// pluginCommandsDecl is what a plugin's command source is made from.
type pluginCommandsDecl struct {
	Dirs     []string
	Watch    bool
	Debounce time.Duration
}

// planPlugins declares one command-file source per used plugin with command folders, its
// commands named "<plugin>:<command>" (the plugin's skills are the skill manager's, its
// servers mcp_servers', both merged by withPlugins).
func planPlugins(pl *planner) error {
	h, st := pl.h, pl.st
	for _, name := range slices.Sorted(maps.Keys(st.plugins.commands)) {
		d := pluginCommandsDecl{Dirs: st.plugins.commands[name], Watch: st.Config.Skills.Watching(h.opts.watching()), Debounce: st.Config.Skills.Debounce}
		key := "plugins." + name
		pl.declare(key, d)
		pl.add(&Entry{Key: Key{Level: ext.LevelPool, Name: PluginCommandsName(name)}, Owner: key, Source: key, Decl: d,
			Opts: []ext.RegisterOption{st.pluginOrigin(name)},
			start: func(context.Context, *batch) (ext.Capability, error) {
				fs, err := command.NewFileSource(d.Dirs, &command.FileOptions{
					Name:      PluginCommandsName(name),
					Namespace: name,
					Watch:     d.Watch,
					Debounce:  d.Debounce,
					Logger:    h.logger,
				})
				if err != nil {
					return nil, err
				}
				return fs, nil
			}})
	}
	return nil
}

// Plugins returns the plugins the host read at its last Build or Reload.
func (h *Host) Plugins() *Plugins { return h.Current().plugins.all }

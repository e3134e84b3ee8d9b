package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentpool/agentpool/command"
	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/plugin"
	"github.com/agentpool/agentpool/skill"
	"github.com/agentpool/agentpool/trust"
)

// The capability names of a project's sources. Only the command files are registered (when
// the project is trusted); the skill manager is for inspection: a trusted project's skill
// roots are scanned by the host's one skill manager.
const (
	projectSkills   = "project-skills"
	projectCommands = "project-commands"
)

// projectConfigFile is the name of a project's own config, as the CLI finds it.
const projectConfigFile = "agentpool.yaml"

// ErrNotTrusted is returned, wrapped with what and where, when a project's declaration would
// start a server the user has not trusted.
var ErrNotTrusted = errors.New("not trusted")

// Project is the working directory's own sources (DESIGN.md "Trust"): its skill and command
// folders and its agentpool.yaml, which arrive with a clone. They are always discovered, so
// they can be shown, but registered — put in any view, their servers started — only when the
// project is trusted.
type Project struct {
	// Dir is the project's real path (absolute, symlinks resolved): the key of its trust record.
	Dir string
	// Verdict is the project's standing with the user; --trust-project (Options.TrustProject)
	// makes it Trusted for one host without recording it.
	Verdict trust.Verdict
	// Decls are every server the project declares: its skills' (frontmatter and mcp.json) and
	// its config's mcp_servers, in that order.
	Decls []trust.Decl
	// Skills are the project's skills ("project-skills", never registered: scanned once for
	// inspection, not watched; a trusted project's skills in use are the host's Skills');
	// Commands its command files ("project-commands", registered when trusted).
	Skills   *skill.Manager
	Commands *command.FileSource
	// Config is the project's agentpool.yaml, nil when it has none or it has errors.
	Config *config.Config
	// Plugins are the plugins the project's agentpool.yaml names (its plugins section, without
	// import_installed: the user's installed plugins are the user's): project content, used
	// only while the project is trusted, their servers fingerprinted with its others. Nil
	// without a config.
	Plugins *Plugins
	// ConfigErr is why the project's agentpool.yaml could not be used (it does not parse, or
	// names an unset variable): the project is then untrusted whatever the store says, and
	// InspectProject fails instead when the user trusts it (a record, or Trust).
	ConfigErr error
	// Shadowed names the servers of the project's agentpool.yaml that are not used because the
	// user's own config has a server of the same name (a trusted project's servers are added
	// to the user's; the user's win).
	Shadowed []string
	// StoreErr is why the trust store could not be read (trust.ErrCorrupt naming the file):
	// the project is then untrusted, unless Options.TrustProject.
	StoreErr error
	// Unscanned are the paths of the project's agentpool.yaml that lie outside the project and
	// were not read because it is not trusted, each "<key> <path>" (skills.dirs /root): a
	// clone's config lists them, it does not make agentpool read them.
	Unscanned []string
	// Unread are the files of the project's import key, not read because it is not trusted
	// (its config was read by LoadProjectConfig with config.LoadOwn): named, never followed.
	Unread []string

	allowed map[string]bool // digests of the declarations that may start
}

// Trusted reports whether the project's sources are in use.
func (p *Project) Trusted() bool { return p != nil && p.Verdict.Status == trust.Trusted }

// Empty reports whether the project has nothing at all: no skill, command file or config.
func (p *Project) Empty() bool {
	return len(p.Skills.Skills()) == 0 && p.commandCount() == 0 && p.Config == nil && p.ConfigErr == nil
}

// pluginDecls lists every server of the project's plugins, enabled or not, as trust
// fingerprints them: "<plugin>.<server>", declared in its .mcp.json (or manifest), as written
// (config.DeclaredServers: the user's ${VAR} values neither fingerprinted nor printed), then its
// skills' own servers, "<plugin>.<skill>.<server>", as the host's skill manager names and
// places them (the same namespaced roots and bounds), so that skillServerFactory's check of
// a used project plugin's skill servers finds their digests. With confine set (an untrusted
// project's folder) no skill folder that links out of it is read.
func pluginDecls(ps *Plugins, maxFolders int, confine string) []trust.Decl {
	if ps == nil {
		return nil
	}
	var out []trust.Decl
	var roots []skill.NamespacedRoot
	for _, p := range ps.List {
		asWritten := map[string]decl.Server{} // by registered name: its file's, the first
		for _, src := range p.MCP {
			declared := config.DeclaredServers(src.File, src.Data, p.Vars())
			for _, name := range declared.Names() {
				full := p.Name + "." + name
				if _, dup := asWritten[full]; !dup && p.Sources[full] == src.File {
					asWritten[full] = declared[name]
				}
			}
		}
		for _, name := range p.Servers.Names() {
			spec, ok := asWritten[name]
			if !ok {
				spec = p.Servers[name] // one that cannot be kept as written: as read
			}
			out = append(out, configServerDecl(p.Sources[name], name, spec))
		}
		for _, dir := range p.SkillDirs {
			roots = append(roots, skill.NamespacedRoot{Namespace: p.Name, Dir: dir})
		}
	}
	if len(roots) == 0 {
		return out
	}
	m, err := skill.NewManager(&skill.Options{Name: "project-plugin-skills", NamespacedRoots: roots, MaxFolders: maxFolders, Confine: confine})
	if err != nil {
		return out // a plugin name that is no namespace: the host cannot build it either
	}
	defer m.Close(context.Background())
	for _, s := range m.Skills() {
		for _, d := range s.Servers {
			out = append(out, skillServerDecl(s.SafeName(), d)) // the name the factory is given
		}
	}
	return out
}

// projectPluginSkill reports whether the skill named skillName in m is one of a used project
// plugin's (plugins the host's, at the factory's making): its servers are the project's.
func projectPluginSkill(plugins *Plugins, m *skill.Manager, skillName string) bool {
	s := m.Skill(skillName)
	if s == nil || s.Namespace == "" {
		return false
	}
	pi := plugins.Get(s.Namespace)
	return pi != nil && pi.Source == projectPluginSource && pi.Used()
}

// commandCount is how many command files the project has.
func (p *Project) commandCount() int {
	cmds, _ := p.Commands.ListCommands(context.Background())
	return len(cmds)
}

// Summary says what the project holds: "2 skills, 1 command file, agentpool.yaml (2 servers)".
func (p *Project) Summary() string {
	var parts []string
	if n := len(p.Skills.Skills()); n > 0 {
		parts = append(parts, plural(n, "skill"))
	}
	if n := p.commandCount(); n > 0 {
		parts = append(parts, plural(n, "command file"))
	}
	if p.Config != nil {
		parts = append(parts, fmt.Sprintf("%s (%s)", filepath.Base(p.Config.Path), plural(len(p.Config.MCPServers), "server")))
	}
	if n := len(p.Plugins.Used()) + len(p.Plugins.untrusted()); n > 0 {
		parts = append(parts, plural(n, "plugin"))
	}
	if p.ConfigErr != nil {
		parts = append(parts, projectConfigFile+" (with errors)")
	}
	return strings.Join(parts, ", ")
}

// plural is "1 skill" or "n skills".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// Close closes the project's sources. It is idempotent.
func (p *Project) Close(ctx context.Context) error {
	return errors.Join(p.Skills.Close(ctx), p.Commands.Close(ctx))
}

// ProjectOptions locate a project's sources for InspectProject.
type ProjectOptions struct {
	// Dir is the working directory; HomeDir the user's home. A project whose real path is the
	// home directory's is no project: its folders are the user's own.
	Dir, HomeDir string
	// DefaultRoots includes the conventional folders (.agents/skills, .claude/skills,
	// .claude/commands, .agents/commands under Dir).
	DefaultRoots bool
	// Config is the project's agentpool.yaml, parsed, or nil. Its skills.dirs and commands.dirs
	// are the project's too. Read it with LoadProjectConfig: one read without its imports
	// (config.Config.ImportsUnread) is listed while the project is untrusted, and makes
	// InspectProject fail when the project is to be read whole (Trust, ScanAll, a record).
	Config *config.Config
	// ConfigErr is why the project's agentpool.yaml could not be parsed (Config is then nil).
	// An untrusted project keeps it in Project.ConfigErr and is shown without its config; a
	// trusted one (a record in Store, or Trust) makes InspectProject fail with it.
	ConfigErr error
	// Store holds the user's decisions; nil means none (untrusted).
	Store *trust.Store
	// Trust makes the project trusted without asking the store (--trust-project).
	Trust bool
	// ScanAll reads the config's paths outside the project though it is not trusted: what
	// agentpool trust prints and records must be what a trusted run would find.
	ScanAll bool
	// Watch follows the project's command folders (only useful when it is trusted). Its skills
	// are never watched here: once trusted, the host's skill manager scans and follows them.
	Watch bool
	// Debounce, MaxFolders and Logger are passed to the skill manager and command source.
	Debounce   time.Duration
	MaxFolders int
	Logger     *slog.Logger
}

// LoadProjectConfig reads the project's agentpool.yaml at path as the project's standing
// allows: whole (config.Load) when the project at dir is trusted — a record in store, even one
// out of date, or trust (--trust-project) — else only for what it declares itself
// (config.LoadOwn): the files its import key names are not read until the user trusts the
// project, nor is path when it links out of dir (an error naming path). A store that cannot
// be read trusts nothing. InspectProject takes either.
func LoadProjectConfig(path, dir string, store *trust.Store, trusted bool) (*config.Config, error) {
	if !trusted && store != nil {
		if real, err := trust.RealPath(dir); err == nil {
			record, err := store.Lookup(real)
			trusted = err == nil && record != nil
		}
	}
	if trusted {
		return config.Load(path)
	}
	// The file itself may be a symlink out of the project: untrusted, it is not followed.
	if real, err := filepath.EvalSymlinks(path); err == nil {
		if rdir, err := trust.RealPath(dir); err == nil && !within(rdir, real) {
			return nil, fmt.Errorf("%s: a symbolic link out of the project, which is not trusted; not read", path)
		}
	}
	return config.LoadOwn(path)
}

// InspectProject discovers the project at opts.Dir — its skills, command files and config —
// and checks it against the store. It starts nothing: the servers are only declarations. It
// returns nil, nil when there is no project (no Dir, or Dir is the home directory). Close the
// Project when done.
func InspectProject(opts ProjectOptions) (*Project, error) {
	if opts.Dir == "" {
		return nil, nil
	}
	dir, err := trust.RealPath(opts.Dir)
	if err != nil {
		return nil, err
	}
	if opts.HomeDir != "" {
		if home, err := trust.RealPath(opts.HomeDir); err == nil && home == dir {
			return nil, nil
		}
	}
	var record *trust.Record
	var storeErr error
	if opts.Store != nil {
		// A store that cannot be read trusts nothing; the project is still shown, and the
		// error is kept for the caller to say (every run would otherwise fail in any project).
		record, storeErr = opts.Store.Lookup(dir)
	}
	p := &Project{Dir: dir, Config: opts.Config, StoreErr: storeErr}
	if opts.Config != nil && opts.Config.ImportsUnread {
		if opts.Trust || opts.ScanAll || record != nil {
			// What the config would run is not all known: never use or record it so.
			return nil, fmt.Errorf("project %s: its %s was read without the files it imports, though the project is to be read whole (read it with LoadProjectConfig)",
				dir, projectConfigFile)
		}
		p.Unread = slices.Clone(opts.Config.Import)
	}
	// An untrusted project's config is read to list what it declares; the folders it names
	// outside the project are not read, so that a clone's skills.dirs: [/] shows nothing of
	// the machine, and neither are its conventional folders when they link out of it. One the
	// user trusts (or trusted once) is read whole.
	readAll := opts.Trust || opts.ScanAll || record != nil
	in := func(path string) bool {
		real, err := trust.RealPath(path)
		return err == nil && within(dir, real) || err != nil && within(dir, filepath.Clean(path))
	}
	inside := func(key string, paths []string) []string {
		if readAll {
			return paths
		}
		var out []string
		for _, path := range paths {
			if in(path) {
				out = append(out, path)
			} else {
				p.Unscanned = append(p.Unscanned, key+" "+path)
			}
		}
		return out
	}
	var skillRoots, cmdRoots []string
	if opts.Config != nil {
		skillRoots, cmdRoots = inside("skills.dirs", opts.Config.Skills.Dirs), inside("commands.dirs", opts.Config.Commands.Dirs)
	}
	var skillDefaults, cmdDefaults []string
	if opts.DefaultRoots {
		skillDefaults, cmdDefaults = skill.DefaultRoots(dir, ""), command.DefaultRoots(dir, "")
		if !readAll {
			out := func(root string) bool { return !in(root) }
			skillDefaults, cmdDefaults = slices.DeleteFunc(skillDefaults, out), slices.DeleteFunc(cmdDefaults, out)
		}
	}
	// Inside those folders, untrusted, no link out of the project is followed either: a clone
	// can hold .claude/commands/x.md or .agents/skills/x as a symlink to /root as easily.
	confine := ""
	if !readAll {
		confine = dir
	}
	p.Skills, err = skill.NewManager(&skill.Options{
		Name: projectSkills, Roots: skillRoots, DefaultRoots: skillDefaults,
		MaxFolders: opts.MaxFolders, Logger: opts.Logger, Confine: confine,
	})
	if err != nil {
		return nil, fmt.Errorf("project %s: %w", dir, err)
	}
	p.Commands, err = command.NewFileSource(slices.Concat(cmdRoots, cmdDefaults), &command.FileOptions{
		Name: projectCommands, Watch: opts.Watch, Debounce: opts.Debounce, Logger: opts.Logger, Confine: confine,
	})
	if err != nil {
		_ = p.Skills.Close(context.Background())
		return nil, fmt.Errorf("project %s: %w", dir, err)
	}
	if opts.Config != nil {
		pc := *opts.Config
		pc.Plugins.ImportInstalled = false
		pc.Plugins.Dirs = inside("plugins.dirs", pc.Plugins.Dirs)
		pc.Plugins.Marketplaces = slices.DeleteFunc(slices.Clone(pc.Plugins.Marketplaces), func(m plugin.MarketplaceConfig) bool {
			if len(inside("plugins.marketplaces", []string{m.Path})) == 0 {
				return true
			}
			if !readAll && !marketInside(m.Path, in) {
				p.Unscanned = append(p.Unscanned, "plugins.marketplaces "+m.Path)
				return true
			}
			return false
		})
		p.Plugins = InspectPlugins(&pc, PluginOptions{})
		for _, pi := range p.Plugins.List {
			pi.Source = projectPluginSource
		}
	}
	p.Decls = append(projectDecls(p.Skills, opts.Config), pluginDecls(p.Plugins, opts.MaxFolders, confine)...)
	p.Verdict = record.Verdict(p.Decls)
	p.allowed = map[string]bool{}
	if opts.ConfigErr != nil {
		// What the config would run is unknown: never trusted. The user who trusted the project
		// is told why it cannot be used; anyone else is not stopped by a clone's broken file.
		if opts.Trust || record != nil {
			_ = p.Close(context.Background())
			return nil, fmt.Errorf("project %s is trusted, but its %s cannot be used (fix it, or run agentpool untrust): %w",
				dir, projectConfigFile, opts.ConfigErr)
		}
		p.ConfigErr, p.Verdict = opts.ConfigErr, trust.Verdict{Status: trust.Untrusted}
		return p, nil
	}
	if opts.Trust || p.Verdict.Status == trust.Trusted {
		p.Verdict = trust.Verdict{Status: trust.Trusted}
		for _, d := range p.Decls {
			p.allowed[d.Digest()] = true
		}
		if record != nil {
			for _, d := range record.Digests {
				p.allowed[d] = true
			}
		}
	}
	return p, nil
}

// marketInside reports whether every marketplace file of the marketplace at path, and the
// folder its local sources are taken from (plugin.Marketplace.Root: the parent of the file's
// .claude-plugin folder, which is outside a project that is itself named so), lie inside the
// project (in). A path with no marketplace file is left for plugin.Load to report.
func marketInside(path string, in func(string) bool) bool {
	files, err := plugin.MarketplaceFiles(path)
	if err != nil {
		return true
	}
	for _, f := range files {
		if !in(f) || !in(plugin.ReadMarketplace(f).Root) {
			return false
		}
	}
	return true
}

// projectDecls lists every server the project declares: its skills' (in name order) and its
// config's (in name order).
func projectDecls(m *skill.Manager, cfg *config.Config) []trust.Decl {
	var out []trust.Decl
	for _, s := range m.Skills() {
		for _, d := range s.Servers {
			out = append(out, skillServerDecl(s.Name, d))
		}
	}
	if cfg != nil {
		declared := cfg.Declared()
		for _, name := range cfg.MCPServers.Names() {
			spec, asWritten := declared[name]
			if !asWritten {
				spec = cfg.MCPServers[name]
			}
			out = append(out, configServerDecl(cfg.Source(name), name, spec)) // an imported one: its JSON file
		}
	}
	return out
}

// skillServerDecl is a skill's own server as trust fingerprints it: the same function serves
// InspectProject and the factory that refuses what was not trusted.
func skillServerDecl(skillName string, d skill.ServerDecl) trust.Decl {
	return trust.Decl{Where: d.Source, Name: skillName + "." + d.Name, Server: d.Server}
}

// configServerDecl is a config's server as trust fingerprints it: the whole declaration as
// written (Config.Declared), so that the values of the user's variables are neither
// fingerprinted nor printed.
func configServerDecl(path, name string, s decl.Server) trust.Decl {
	return trust.Decl{Where: path, Name: name, Server: s}
}

// declares reports whether d was declared in one of the project's skill roots: the skill
// manager scans those roots under the same paths as the project's own (Skills.Roots), so the
// declaration's Source starts with one of them.
func (p *Project) declares(d skill.ServerDecl) bool {
	for _, root := range p.Skills.Roots() {
		if within(root, d.Source) {
			return true
		}
	}
	return false
}

// within reports whether path lies inside the folder root (both absolute, as written).
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// permit returns nil when the project's declaration d may start, or an error wrapping
// ErrNotTrusted naming it.
func (p *Project) permit(d trust.Decl) error {
	if p.allowed[d.Digest()] {
		return nil
	}
	return fmt.Errorf("%s: server %q: %w: it was added or changed since project %s was trusted: run agentpool trust", d.Where, d.Name, ErrNotTrusted, p.Dir)
}

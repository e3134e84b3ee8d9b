package host

import (
	"cmp"
	"context"
	"slices"
	"sync/atomic"
	"time"

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

// The keys of the pool's skill manager and command files.
var (
	skillsKey   = Key{Level: ext.LevelPool, Name: "skills"}
	commandsKey = Key{Level: ext.LevelPool, Name: "commands"}
)

// skillsDecl is what the pool's skill manager is made from.
type skillsDecl struct {
	Section         skill.Config
	Roots, Defaults []string
	Namespaced      []skill.NamespacedRoot
	UserRoots       int // how many of the manager's roots are the user's own (the first)
	Watch           bool
	Debounce        time.Duration
	MaxFolders      int
}

// planSkills declares the one skill manager of the view, "skills", over, in precedence order:
// the command line's roots, the config's, unless Options.NoDefaultRoots the user's conventional
// ones, a trusted project's (its conventional folders and its config's skills.dirs, as
// InspectProject found them), and the bundled ones. One manager, so the model sees one
// catalogue and one load_skill, each skill once: a user's skill outranks a project's of the
// same name, and both outrank a bundled one (the loser is a diagnostic). A project skill's
// own servers are checked against what the user trusted when they are built
// (skillServerFactory).
func planSkills(pl *planner) error {
	h, cfg := pl.h, pl.st.Config.Skills
	// The command line's and the config's roots are reported when missing; the others are not.
	roots := append(slices.Clone(h.opts.SkillDirs), cfg.Dirs...)
	var defaults []string
	if !h.opts.NoDefaultRoots {
		defaults = skill.DefaultRoots("", h.opts.HomeDir)
	}
	d := skillsDecl{Section: cfg, Roots: roots, UserRoots: len(roots) + len(defaults),
		// A plugin's skills are named "<plugin>:<skill>": they can neither take nor lose a
		// name to the user's (package skill).
		Namespaced: pl.st.plugins.skills,
		Watch:      cfg.Watching(h.opts.watching()), Debounce: cfg.Debounce, MaxFolders: cfg.MaxFolders}
	if p := pl.st.Project; p.Trusted() {
		defaults = append(defaults, p.Skills.Roots()...)
	}
	d.Defaults = append(defaults, h.opts.BundledSkillDirs...)
	pl.declare("skills", d)
	pl.add(&Entry{Key: skillsKey, Owner: "skills", Source: "skills", Decl: d, Opts: []ext.RegisterOption{localOrigin},
		start: func(context.Context, *batch) (ext.Capability, error) {
			m, err := skill.NewManager(&skill.Options{
				Roots:           d.Roots,
				DefaultRoots:    d.Defaults,
				NamespacedRoots: d.Namespaced,
				Watch:           d.Watch,
				Debounce:        d.Debounce,
				MaxFolders:      d.MaxFolders,
				CatalogueBudget: d.Section.Budget(),
				Logger:          h.logger,
				Matcher:         h.opts.matcher(),
				// No Children: a skill's servers are each session's (OpenSession), not the pool's.
			})
			if err != nil {
				return nil, err
			}
			return m, nil
		}})
	return nil
}

// userRootsOf returns the first n roots of m: the user's own.
func userRootsOf(m *skill.Manager, n int) map[string]bool {
	out := map[string]bool{}
	for _, r := range m.Roots()[:n] {
		out[r] = true
	}
	return out
}

// poolSkills returns the pool's skill manager the batch made or kept, and its user's roots.
func (b *batch) poolSkills() (*skill.Manager, map[string]bool) {
	m, _ := b.cap(skillsKey).(*skill.Manager)
	if e := b.applied[skillsKey]; e != nil && m != nil {
		return m, userRootsOf(m, e.Decl.(skillsDecl).UserRoots)
	}
	return m, b.st.userSkillRoots
}

// commandsDecl is what the user's command files are made from.
type commandsDecl struct {
	Section  command.Config
	Roots    []string
	Watch    bool
	Debounce time.Duration
}

// planCommands declares the command-file source over the config's roots and the default ones,
// and a trusted project's command files. Command files are watched as skills are
// (skills.watch, skills.debounce): one host follows both, and a separate switch has not been
// asked for.
func planCommands(pl *planner) error {
	h, cfg := pl.h, pl.st.Config
	roots := slices.Clone(cfg.Commands.Dirs)
	if !h.opts.NoDefaultRoots {
		roots = append(roots, command.DefaultRoots("", h.opts.HomeDir)...)
	}
	d := commandsDecl{Section: cfg.Commands, Roots: roots, Watch: cfg.Skills.Watching(h.opts.watching()), Debounce: cfg.Skills.Debounce}
	pl.declare("commands", d)
	pl.add(&Entry{Key: commandsKey, Owner: "commands", Source: "commands", Decl: d, Opts: []ext.RegisterOption{localOrigin},
		start: func(context.Context, *batch) (ext.Capability, error) {
			fs, err := command.NewFileSource(d.Roots, &command.FileOptions{Watch: d.Watch, Debounce: d.Debounce, Logger: h.logger})
			if err != nil {
				return nil, err
			}
			return fs, nil
		}})
	if p := pl.st.Project; p.Trusted() {
		// The project is read once, at Build: its command files stay as they are.
		pl.add(&Entry{Key: Key{Level: ext.LevelPool, Name: projectCommands}, Owner: "project commands", Source: "project commands",
			Decl: p.Dir, Opts: []ext.RegisterOption{projectOrigin(p)},
			start: func(context.Context, *batch) (ext.Capability, error) { return p.Commands, nil }})
	}
	return nil
}

// serverDecl is what an MCP server's capability is made from: its declaration and the pool
// partition it leases its client in.
type serverDecl struct {
	Spec      decl.Server
	Partition string
	Pins      pinSpec
}

// planServers declares every pool-scoped MCP server, in name order, the user's before a
// trusted project's, and records the session-scoped ones for OpenSession in the same order. A
// Cap says its own origin (remote, mcp://<name>); among servers of one origin and scope the
// one registered first keeps a tool name both list, so a project's server cannot take one
// from the user's (by a prefix naming its tools like theirs).
func planServers(pl *planner) error {
	st := pl.st
	names := st.Config.MCPServers.Names()
	slices.SortStableFunc(names, func(a, b string) int {
		return cmp.Compare(b2i(st.projectServers[a]), b2i(st.projectServers[b]))
	})
	for _, name := range names {
		spec := st.Config.MCPServers[name]
		key := "mcp_servers." + name
		pl.declare(key, spec)
		if spec.Scope == mcpcap.ScopeSession {
			st.sessionServers = append(st.sessionServers, name)
			continue
		}
		pl.add(pl.h.serverEntry(Key{Level: ext.LevelPool, Name: name}, key, key, st.sandboxed(name, st.hiddenText(spec)), connpool.GlobalPartition, pinsOf(st, name, spec)))
	}
	return nil
}

// serverEntry is the entry of the MCP server key.Name, declared by spec at source (a key of
// owner), leasing its client in partition. Replacing or removing it ends its pooled client
// (connpool.Pool.Retire), so its process ends now rather than after pool.idle_timeout and
// its successor — even when the declaration differs only in what the pool does not
// fingerprint (prefix, allow_tools) — starts a new one. A client that other leases hold
// (another declaration with the same command) ends at their last release.
func (h *Host) serverEntry(key Key, owner, source string, spec decl.Server, partition string, pins pinSpec) *Entry {
	// The capability of this entry handed over to a successor of the same pool fingerprint
	// (only prefix, allow_tools or timeout changed), whose client left the pool then: its stop
	// must not retire by fingerprint again, which would take the successor's client. With
	// another fingerprint it must: a reconnect during the drain (a call in flight retried after
	// its process died) started a client of the old declaration, which must not idle on.
	var handed atomic.Pointer[mcpcap.Cap]
	return &Entry{Key: key, Owner: owner, Source: source, Decl: serverDecl{spec, partition, pins},
		Restart: key.Level == ext.LevelPool || key.Slot.SessionID != "",
		start: func(context.Context, *batch) (ext.Capability, error) {
			c, err := h.newServer(key.Name, spec, partition, pins)
			if err != nil {
				return nil, err
			}
			return c, nil
		},
		stop: func(ctx context.Context, c ext.Capability) error {
			err := h.closeBounded(ctx, c)
			if m, ok := c.(*mcpcap.Cap); ok && handed.Load() != m {
				h.Pool.Retire(m.Config().Server, partition)
			}
			return err
		},
		// A changed server: the new one takes the calls from now on (its own process: the old
		// client leaves the pool at once, kept by the old Cap's lease), and the old one ends
		// once its calls in flight are done, or its call timeout passed; closing it releases
		// the old client, which ends then, and only that one, or a client of the old
		// declaration it reconnected to meanwhile.
		handOver: func(old, next ext.Capability) func(context.Context) error {
			o, ok := old.(*mcpcap.Cap)
			n, ok2 := next.(*mcpcap.Cap)
			if !ok || !ok2 {
				return nil
			}
			o.HandOver(n)
			if o.Config().Server.Fingerprint() == n.Config().Server.Fingerprint() {
				handed.Store(o)
			}
			h.Pool.Retire(o.Config().Server, partition)
			return func(ctx context.Context) error {
				ctx, cancel := context.WithTimeout(ctx, o.Config().Timeout)
				defer cancel()
				return o.Drain(ctx)
			}
		}}
}

// hiddenText is spec with the config's extensions.hidden_text as its hidden_text when it sets
// none, so that a change of the default changes the declaration, and a reload replaces the
// capability. Trust reads the declarations as written, never this.
func (st *State) hiddenText(spec decl.Server) decl.Server {
	if spec.HiddenText == "" && st != nil && st.Config != nil {
		spec.HiddenText = st.Config.Extensions.HiddenText
	}
	return spec
}

// newServer builds the configured server name in the pool partition given, its tools pinned
// as pins says. Without a prefix key its tools are listed as ext.ToolName(name, tool),
// "<name>__<tool>"; prefix: "" keeps the server's own names.
func (h *Host) newServer(name string, spec decl.Server, partition string, pins pinSpec) (*mcpcap.Cap, error) {
	cfg, err := mcpcap.ConfigOf(name, spec)
	if err != nil {
		return nil, err
	}
	if b := spec.Sandbox; b != nil && b.Dropped != "" {
		h.logger.Warn(b.Dropped)
	}
	if cfg.Prefix == nil {
		prefix := ext.ToolName(name, "")
		cfg.Prefix = &prefix
	}
	guard, done := h.pinGuard(name, spec, pins)
	guard = append(guard, h.manifests(name, spec, pins)...)
	c, err := mcpcap.New(cfg, append([]mcpcap.Option{mcpcap.WithPool(h.Pool, partition), mcpcap.WithLogger(h.logger)}, guard...)...)
	done(c)
	return c, err
}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

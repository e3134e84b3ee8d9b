package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/agentpool/agentpool/command"
	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/manifest"
	"github.com/agentpool/agentpool/mcpcap"
	"github.com/agentpool/agentpool/pin"
	"github.com/agentpool/agentpool/skill"
	"github.com/agentpool/agentpool/trust"
)

// Options are the inputs to Build that do not come from the file: command-line roots and
// where the project and user folders are.
type Options struct {
	// SkillDirs are skill roots of the highest precedence (--skills-dir), before the config's.
	SkillDirs []string
	// NoDefaultRoots leaves out the project and user skill and command roots (.agents/…,
	// .claude/… under ProjectDir and HomeDir), which zero Options use (--no-default-roots).
	NoDefaultRoots bool
	// ProjectDir and HomeDir locate the default roots. ProjectDir is the project (the working
	// directory): its folders and ProjectConfig are used only when it is trusted (see Project).
	ProjectDir, HomeDir string
	// ProjectConfig is the project's own agentpool.yaml, found in ProjectDir without being
	// named on the command line, parsed; nil when there is none. When the project is trusted
	// its mcp_servers are added to Build's config (the user's win a name both use); otherwise it is only
	// inspected (its servers fingerprinted).
	ProjectConfig *config.Config
	// ProjectConfigErr is why the project's agentpool.yaml could not be parsed (ProjectConfig
	// is then nil): an untrusted project is skipped, its Project.ConfigErr saying why; a
	// trusted one makes Build fail with it.
	ProjectConfigErr error
	// Trust holds the user's trust decisions; nil means none is recorded.
	Trust *trust.Store
	// TrustProject trusts the project for this host without recording it (--trust-project).
	TrustProject bool
	// BundledSkillDirs are skill roots shipped with the program (agentpool serve's example
	// skills), scanned last by the skill manager: any other skill of the same name wins.
	BundledSkillDirs []string
	// NoWatch turns hot reload off for skills, commands and pins. Zero Options watch, as the
	// config's skills.watch defaults to (skills.watch: false turns it off too).
	NoWatch bool
	// Logger receives lifecycle messages; nil discards them.
	Logger *slog.Logger
	// PluginState is the file `agentpool plugins enable|disable` writes (plugin.StatePath):
	// its choices override the config's plugins section. "" means none.
	PluginState string
	// CodexHome is $CODEX_HOME, where plugins.import_installed finds Codex's plugins; "" means
	// HomeDir/.codex.
	CodexHome string
	// Tokens keeps the users' OAuth tokens of url servers with auth: authorization_code
	// (agentpool login saves them; cmd/agentpool passes a connpool.FileTokenStore under
	// $XDG_CONFIG_HOME/agentpool/tokens). Nil: such a server needs login at every start.
	Tokens connpool.TokenStore
	// Matcher picks the skills a turn's prompt selects for the dynamic instructions (see
	// skill.Options.Matcher); nil means skill.MatchByName, the skills the prompt names.
	Matcher func(prompt string, skills []ext.SkillEntry) []string
	// Pins checks the listings of the config's, a trusted project's and plugins' MCP servers
	// against the definitions the user approved (the pins keys choose the policy); nil pins
	// nothing.
	Pins *pin.Book
	// Manifests caches what every MCP server lists, per declaration (pin.Key and cwd), so
	// that a lazy server without static tools is listed without starting it
	// (mcpcap.WithManifests); nil caches nothing.
	Manifests *manifest.Store
}

// watching reports whether the host follows files (Options.NoWatch).
func (o Options) watching() bool { return !o.NoWatch }

func (o Options) matcher() func(string, []ext.SkillEntry) []string {
	if o.Matcher != nil {
		return o.Matcher
	}
	return skill.MatchByName
}

// Host is everything Build assembled. Close it to stop every capability and then the pool.
// What a reload replaces is read through Current, one immutable State; Registry and Pool are
// set by Build and never change.
type Host struct {
	// Registry holds every capability; closing it closes them and then the pool.
	Registry *ext.Registry
	// Pool is the connection pool every MCP server leases its client from.
	Pool *connpool.Pool

	opts       Options
	state      atomic.Pointer[State] // the state in use (Current)
	sessionSeq atomic.Uint64         // numbers each OpenSession's pool partition
	reloadMu   sync.RWMutex          // held by Reload; sessions open and close under its read lock
	sessMu     sync.Mutex
	partitions map[string][]string // by session id: the pool partitions CloseSession ends
	// drains are the replaced capabilities finishing their work (retireEntry); drainCtx ends
	// at Close (endDrains).
	drains    sync.WaitGroup
	drainCtx  context.Context
	endDrains context.CancelFunc
	// by session id: the agent OpenAgentSession opened it for, and the entries registered
	sessionAgents map[string]string
	sessionPlans  map[string][]*Entry
	logger        *slog.Logger
}

// Build creates the registry, the connection pool and every capability the config declares,
// and registers them. It does no I/O beyond scanning skill and command folders: MCP servers
// connect when first listed.
//
// It follows Caddy's lifecycle: load (the config is checked again with Config.Validate, which
// fills in what it implies as Parse does, since one made in code has not been through Parse),
// plan (every kind declares its registrations; names must be unique across kinds, session-scoped
// servers included), then the reconciler applies the plan to the empty host: it makes every
// capability, then registers them. When a step fails, Build closes everything it started, the
// connection pool last, and returns every error: nothing half-started survives.
func Build(ctx context.Context, cfg *config.Config, opts Options) (*Host, error) {
	if cfg == nil {
		cfg = &config.Config{}
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	reg := ext.NewRegistry(&ext.RegistryOptions{
		MaxCompositionDepth: cfg.Extensions.MaxCompositionDepth,
		Logger:              logger,
	})
	pool := connpool.New(&connpool.Options{
		MaxClients:      cfg.Pool.MaxClients,
		MaxTotalClients: cfg.Pool.MaxTotalClients,
		IdleTimeout:     cfg.Pool.IdleTimeout,
		Logger:          logger,
		ConfigureClient: mcpcap.RegisterSkillMethods,
		Tokens:          opts.Tokens,

		MaxSessionProcesses: cfg.Pool.MaxSessionProcesses,
	})
	reg.OnClose(pool.Close)
	h := &Host{Registry: reg, Pool: pool, opts: opts, logger: logger}
	reg.SetSessionCheck(h.checkSession)
	h.drainCtx, h.endDrains = context.WithCancel(context.Background())
	reg.OnClose(h.stopDrains) // before the pool closes
	h.watchPins(reg)
	p, err := h.inspectProject(cfg)
	if err != nil {
		return nil, h.abort(ctx, err)
	}
	st, err := h.newState(cfg, p)
	if err != nil {
		return nil, h.abort(ctx, err)
	}
	pool.Reserve(st.declaredServers())
	out := h.reconcile(ctx, st, nil, st.plan.Entries, true, nil)
	if len(out.failures) > 0 {
		return nil, h.abort(ctx, out.err())
	}
	h.publish(st.with(out.applied, out.caps))
	return h, nil
}

// newState returns the state of user, the user's config (validated): with trusted project p's
// servers and the used plugins' added, and its plan. It starts nothing.
func (h *Host) newState(user *config.Config, p *Project) (*State, error) {
	merged, projectServers, p, err := withProjectServers(user, p)
	if err != nil {
		return nil, err
	}
	// After the project: a trusted project's plugins are read with the user's.
	merged, plugins := withPlugins(merged, h.readPlugins(merged, p))
	st := &State{Config: merged, Project: p, plugins: plugins, projectServers: projectServers, agents: map[string]*Agent{}}
	if st.plan, err = h.makePlan(st); err != nil {
		return nil, err
	}
	return st, nil
}

// with returns a copy of st holding the capabilities of entries (the plan applied): the
// skill manager, the command files, the pool's servers, each agent's skill manager.
func (st *State) with(entries []*Entry, caps map[Key]ext.Capability) *State {
	next := *st
	next.plan = Plan{Entries: entries, Decls: st.plan.Decls}
	next.caps = make(map[Key]ext.Capability, len(entries))
	next.Servers = nil
	for _, e := range entries {
		c := caps[e.Key]
		next.caps[e.Key] = c
		if m, ok := c.(*mcpcap.Cap); ok && e.Key.Level == ext.LevelPool {
			next.Servers = append(next.Servers, m)
		}
	}
	next.Servers = slices.Clip(next.Servers) // a reader's append copies
	next.Skills, _ = next.caps[skillsKey].(*skill.Manager)
	next.Commands, _ = next.caps[commandsKey].(*command.FileSource)
	next.userSkillRoots = map[string]bool{}
	if e := (Plan{Entries: entries}).index()[skillsKey]; e != nil && next.Skills != nil {
		next.userSkillRoots = userRootsOf(next.Skills, e.Decl.(skillsDecl).UserRoots)
	}
	next.agents = make(map[string]*Agent, len(st.agents))
	for name, a := range st.agents {
		mine := *a
		mine.Skills, _ = next.caps[Key{ext.LevelAgent, ext.Scope{AgentName: name}, agentSkills}].(*skill.Manager)
		next.agents[name] = &mine
	}
	return &next
}

// inspectProject discovers the project (Options.ProjectDir) and checks it against the user's
// trust decisions; cfg is the user's config. A trusted project's config, if it has one, adds
// its servers to the host's (withProjectServers); an untrusted project's sources stay built,
// for inspection, but are registered nowhere.
func (h *Host) inspectProject(cfg *config.Config) (*Project, error) {
	po := ProjectOptions{Dir: h.opts.ProjectDir, HomeDir: h.opts.HomeDir, DefaultRoots: !h.opts.NoDefaultRoots,
		Config: h.opts.ProjectConfig, ConfigErr: h.opts.ProjectConfigErr, Store: h.opts.Trust,
		Trust: h.opts.TrustProject, Logger: h.logger,
		// The bounds the skill manager scans the project's roots with once it is trusted: a
		// skill it finds must have been fingerprinted.
		MaxFolders: cfg.Skills.MaxFolders}
	if pc := h.opts.ProjectConfig; pc != nil && po.ConfigErr == nil {
		// Validated like any config, but built from only when trusted: an error is the
		// project's (see ProjectConfigErr), not the host's.
		if err := pc.Validate(); err != nil {
			po.Config, po.ConfigErr = nil, fmt.Errorf("config: %w", err)
		}
	}
	p, err := InspectProject(po)
	if err != nil || p == nil {
		return nil, err
	}
	if watch := cfg.Skills.Watching(h.opts.watching()); p.Trusted() && watch {
		// Command files watched only once trusted: an untrusted project's folders feed
		// nothing (its skill roots are followed by the host's skill manager). The second scan
		// keeps the first's permissions, so a server added in between still asks, and the
		// first's plugins, whose servers are used as read (not checked again when they
		// start): a .mcp.json changed in between must not be used as trusted.
		allowed, plugins := p.allowed, p.Plugins
		_ = p.Close(context.Background())
		po.Watch, po.Debounce, po.MaxFolders, po.Trust = true, cfg.Skills.Debounce, cfg.Skills.MaxFolders, true
		if p, err = InspectProject(po); err != nil {
			return nil, err
		}
		p.allowed, p.Plugins = allowed, plugins
	}
	// Run before the pool closes (OnClose runs in reverse order); closing the registered
	// sources again is harmless, Close being idempotent.
	h.Registry.OnClose(p.Close)
	return p, nil
}

// withProjectServers returns base (the user's config) with trusted project p's mcp_servers
// added, the names of the servers it added, and p as that config sees it: a copy whose
// Shadowed names the project's servers not used because the user's config has one of the same
// name. Everything else stays the user's: the pool, extensions (allowed_commands included: the
// user's policy holds for the project's servers too), the skills and commands sections (the
// project's own dirs are the project's roots, scanned by its sources). An untrusted project,
// or one without a config, adds nothing. The project is not read again: what it may start is
// what was trusted when the host was built.
func withProjectServers(base *config.Config, p *Project) (*config.Config, map[string]bool, *Project, error) {
	if !p.Trusted() || p.Config == nil {
		return base, nil, p, nil
	}
	mine := *p
	mine.Shadowed = nil
	merged := *base
	merged.MCPServers = maps.Clone(base.MCPServers)
	if merged.MCPServers == nil {
		merged.MCPServers = mcpcap.Servers{}
	}
	added := map[string]bool{}
	for _, name := range p.Config.MCPServers.Names() {
		if _, taken := merged.MCPServers[name]; taken {
			mine.Shadowed = append(mine.Shadowed, name)
			continue
		}
		merged.MCPServers[name] = p.Config.MCPServers[name]
		added[name] = true
	}
	if err := merged.Validate(); err != nil {
		return nil, nil, nil, fmt.Errorf("%s, added to your own config: %w", p.Config.Path, err)
	}
	return &merged, added, &mine, nil
}

// abort closes the host (every registered capability, then the pool) and returns err with
// any error of theirs.
func (h *Host) abort(ctx context.Context, err error) error {
	return errors.Join(err, h.Close(context.WithoutCancel(ctx)))
}

// Close closes every capability, in scope order, then the connection pool. It is idempotent.
func (h *Host) Close(ctx context.Context) error { return h.Registry.Close(ctx) }

package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"sync"
	"sync/atomic"

	"github.com/agentpool/agentpool/command"
	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/mcpcap"
	"github.com/agentpool/agentpool/skill"
	"github.com/agentpool/agentpool/trust"
)

// Options are the inputs to Build that do not come from the file: command-line roots and
// where the project and user folders are.
type Options struct {
	// SkillDirs are skill roots of the highest precedence (--skills-dir), before the config's.
	SkillDirs []string
	// DefaultRoots adds the project and user skill and command roots (.agents/…, .claude/…).
	DefaultRoots bool
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
	// Watch turns hot reload on for skills and commands (the config's skills.watch can turn it off).
	Watch bool
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
}

func (o Options) matcher() func(string, []ext.SkillEntry) []string {
	if o.Matcher != nil {
		return o.Matcher
	}
	return skill.MatchByName
}

// Host is everything Build assembled. Close it to stop every capability and then the pool.
type Host struct {
	// Config is the configuration the host was built from.
	Config *config.Config
	// Registry holds every capability; closing it closes them and then the pool.
	Registry *ext.Registry
	// Pool is the connection pool every MCP server leases its client from.
	Pool *connpool.Pool
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
	// Servers are the pool-scoped MCP servers, in name order.
	Servers []*mcpcap.Cap

	opts           Options
	plugins        pluginParts     // what the used plugins add (withPlugins)
	sessionServers []string        // names of session-scoped servers, built per session
	projectServers map[string]bool // the servers a trusted project's agentpool.yaml added
	userSkillRoots map[string]bool // Skills' roots before a trusted project's: the user's own
	agentsMu       sync.Mutex      // guards agents, which Reload changes while sessions look agents up
	agents         map[string]*Agent
	sessionSeq     atomic.Uint64 // numbers each OpenSession's pool partition
	reloadMu       sync.RWMutex  // held by Reload; sessions open and close under its read lock
	sessMu         sync.Mutex
	partitions     map[string][]string // by session id: the pool partitions CloseSession ends
	sessionAgents  map[string]string   // by session id: the agent OpenAgentSession opened it for
	logger         *slog.Logger
}

// kind builds one extension kind's section of the config: the capabilities it declares at
// pool scope, not yet registered. On error it still returns what it built, for Build to close.
type kind struct {
	key   string // the section's key in the config file
	build func(ctx context.Context, h *Host) ([]part, error)
}

// kinds are the extension kinds Build knows, in registration order (the order Visible lists
// them in). A new kind is its own package's config struct plus one entry here (and the
// config.Config field naming its key; a test checks that both exist).
var kinds = []kind{
	{"skills", buildSkills},
	{"commands", buildCommands},
	{"plugins", buildPlugins},
	{"mcp_servers", buildServers},
	{"agents", buildAgents},
}

// part is one capability a kind built, waiting to be registered: at pool scope, unless level
// and slot say otherwise (an agent's, at ext.LevelAgent for its name).
type part struct {
	key   string // where it comes from in the config ("skills", "mcp_servers.x")
	cap   ext.Capability
	opts  []ext.RegisterOption
	level ext.ScopeLevel
	slot  ext.Scope
}

// Build creates the registry, the connection pool and every capability the config declares,
// and registers them at pool scope. It does no I/O beyond scanning skill and command folders:
// MCP servers connect when first listed.
//
// It follows Caddy's lifecycle: load (the config is checked again with Config.Validate, which
// fills in what it implies as Parse does, since one made in code has not been through Parse),
// provision (every kind builds its capabilities), validate (the capabilities' names are unique
// across kinds, session-scoped servers included), then register. When a step fails, Build
// closes everything it started, the connection pool last, and returns the error: nothing
// half-started survives.
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
	})
	reg.OnClose(pool.Close)
	h := &Host{Config: cfg, Registry: reg, Pool: pool, opts: opts, logger: logger}
	if err := h.inspectProject(); err != nil {
		return nil, h.abort(ctx, nil, err)
	}

	// After the project: a trusted project's plugins are read with the user's.
	h.Config, h.plugins = withPlugins(h.Config, h.readPlugins(h.Config))

	var parts []part
	for _, k := range kinds {
		built, err := k.build(ctx, h)
		parts = append(parts, built...)
		if err != nil {
			return nil, h.abort(ctx, parts, fmt.Errorf("build %s: %w", k.key, err))
		}
	}
	if err := h.checkNames(parts); err != nil {
		return nil, h.abort(ctx, parts, err)
	}
	for i, p := range parts {
		if err := reg.Register(p.cap, p.level, p.slot, p.opts...); err != nil {
			return nil, h.abort(ctx, parts[i:], fmt.Errorf("register %s: %w", p.key, err))
		}
	}
	return h, nil
}

// inspectProject discovers the project (Options.ProjectDir) and checks it against the user's
// trust decisions. A trusted project's config, if it has one, adds its servers to the host's
// (withProjectServers); an untrusted project's sources stay built, for inspection, but are
// registered nowhere.
func (h *Host) inspectProject() error {
	po := ProjectOptions{Dir: h.opts.ProjectDir, HomeDir: h.opts.HomeDir, DefaultRoots: h.opts.DefaultRoots,
		Config: h.opts.ProjectConfig, ConfigErr: h.opts.ProjectConfigErr, Store: h.opts.Trust,
		Trust: h.opts.TrustProject, Logger: h.logger,
		// The bounds the skill manager scans the project's roots with once it is trusted: a
		// skill it finds must have been fingerprinted.
		MaxFolders: h.Config.Skills.MaxFolders}
	if pc := h.opts.ProjectConfig; pc != nil && po.ConfigErr == nil {
		// Validated like any config, but built from only when trusted: an error is the
		// project's (see ProjectConfigErr), not the host's.
		if err := pc.Validate(); err != nil {
			po.Config, po.ConfigErr = nil, fmt.Errorf("config: %w", err)
		}
	}
	p, err := InspectProject(po)
	if err != nil || p == nil {
		return err
	}
	if watch := h.Config.Skills.Watching(h.opts.Watch); p.Trusted() && watch {
		// Command files watched only once trusted: an untrusted project's folders feed
		// nothing (its skill roots are followed by the host's skill manager). The second scan
		// keeps the first's permissions, so a server added in between still asks, and the
		// first's plugins, whose servers are used as read (not checked again when they
		// start): a .mcp.json changed in between must not be used as trusted.
		allowed, plugins := p.allowed, p.Plugins
		_ = p.Close(context.Background())
		po.Watch, po.Debounce, po.MaxFolders, po.Trust = true, h.Config.Skills.Debounce, h.Config.Skills.MaxFolders, true
		if p, err = InspectProject(po); err != nil {
			return err
		}
		p.allowed, p.Plugins = allowed, plugins
	}
	if p.Trusted() && p.Config != nil {
		// After the second inspection, which would lose Project.Shadowed.
		merged, err := h.withProjectServers(h.Config, p)
		if err != nil {
			_ = p.Close(context.Background())
			return err
		}
		h.Config = merged
	}
	h.Project = p
	// Run before the pool closes (OnClose runs in reverse order); closing the registered
	// sources again is harmless, Close being idempotent.
	h.Registry.OnClose(p.Close)
	return nil
}

// withProjectServers returns base (the user's config) with the trusted project's mcp_servers added.
// Everything else stays the user's: the pool, extensions (allowed_commands included: the
// user's policy holds for the project's servers too), the skills and commands sections (the
// project's own dirs are the project's roots, scanned by its sources). A project server named
// like one of the user's is not used: it is recorded in Project.Shadowed.
func (h *Host) withProjectServers(base *config.Config, p *Project) (*config.Config, error) {
	merged := *base
	merged.MCPServers = maps.Clone(base.MCPServers)
	if merged.MCPServers == nil {
		merged.MCPServers = mcpcap.Servers{}
	}
	for _, name := range p.Config.MCPServers.Names() {
		if _, mine := merged.MCPServers[name]; mine {
			p.Shadowed = append(p.Shadowed, name)
			continue
		}
		merged.MCPServers[name] = p.Config.MCPServers[name]
		if h.projectServers == nil {
			h.projectServers = map[string]bool{}
		}
		h.projectServers[name] = true
	}
	if err := merged.Validate(); err != nil {
		return nil, fmt.Errorf("%s, added to your own config: %w", p.Config.Path, err)
	}
	return &merged, nil
}

// checkNames reports a capability name used twice: two capabilities of one name in a scope
// would make one of them unreachable by name.
func (h *Host) checkNames(parts []part) error {
	owner := make(map[string]string, len(parts)+len(h.sessionServers))
	var errs []error
	claim := func(owner map[string]string, name, key string) {
		if first, ok := owner[name]; ok {
			errs = append(errs, fmt.Errorf("%s: name %q is already used by %s", key, name, first))
			return
		}
		owner[name] = key
	}
	var agentParts []part
	for _, p := range parts {
		if p.level == ext.LevelAgent {
			agentParts = append(agentParts, p)
			continue
		}
		claim(owner, p.cap.Name(), p.key)
	}
	for _, name := range h.sessionServers {
		claim(owner, name, "mcp_servers."+name)
	}
	if key, ok := owner[skillServers]; ok {
		errs = append(errs, fmt.Errorf("%s: name %q is reserved for the skills' servers of each session", key, skillServers))
	}
	if key, ok := owner[projectCommands]; ok && !h.Project.Trusted() {
		// Reserved even while the project's command files are not registered: trusting the
		// project must not make a configured name clash.
		errs = append(errs, fmt.Errorf("%s: name %q is reserved for the project's command files", key, projectCommands))
	}
	// An agent sees the pool's names and its own: two agents may use one name.
	reserved := []string{skillServers, agentSkills, agentSkillServers}
	for _, name := range h.Config.Agents.Names() {
		mine := maps.Clone(owner)
		for _, r := range reserved {
			if _, ok := mine[r]; !ok {
				mine[r] = "agentpool (reserved)"
			}
		}
		a := h.agents[name]
		for _, p := range agentParts {
			if p.slot.AgentName == name && p.cap != ext.Capability(a.Skills) {
				claim(mine, p.cap.Name(), p.key)
			}
		}
		if a != nil {
			for _, s := range a.sessionServers {
				claim(mine, s, "agents."+name+".mcp_servers."+s)
			}
		}
	}
	return errors.Join(errs...)
}

// abort closes the capabilities built but not registered, then the host (every registered
// capability, then the pool), and returns err with any error of theirs.
func (h *Host) abort(ctx context.Context, unregistered []part, err error) error {
	ctx = context.WithoutCancel(ctx)
	for _, p := range unregistered {
		err = errors.Join(err, p.cap.Close(ctx))
	}
	return errors.Join(err, h.Close(ctx))
}

// Close closes every capability, in scope order, then the connection pool. It is idempotent.
func (h *Host) Close(ctx context.Context) error { return h.Registry.Close(ctx) }

// Current returns the config, pool-scoped servers and skill manager in use now. A reload
// (Reload) replaces them, so code that may run beside one (a status page) reads them here
// rather than from the fields.
func (h *Host) Current() (cfg *config.Config, servers []*mcpcap.Cap, skills *skill.Manager) {
	h.reloadMu.RLock()
	defer h.reloadMu.RUnlock()
	return h.Config, h.Servers, h.Skills
}

package config

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/agentpool/agentpool/command"
	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/mcpcap"
	"github.com/agentpool/agentpool/skill"
)

// BuildOptions are the inputs to Build that do not come from the file: command-line roots and
// where the project and user folders are.
type BuildOptions struct {
	// SkillDirs are skill roots of the highest precedence (--skills-dir), before the config's.
	SkillDirs []string
	// DefaultRoots adds the project and user skill and command roots (.agents/…, .claude/…).
	DefaultRoots bool
	// ProjectDir and HomeDir locate the default roots.
	ProjectDir, HomeDir string
	// Watch turns hot reload on for skills and commands (the config's skills.watch can turn it off).
	Watch bool
	// Logger receives lifecycle messages; nil discards them.
	Logger *slog.Logger
}

// Host is everything Build assembled. Close it to stop every capability and then the pool.
type Host struct {
	Config   *Config
	Registry *ext.Registry
	Pool     *connpool.Pool
	Skills   *skill.Manager
	Commands *command.FileSource
	// Servers are the pool-scoped MCP servers, in name order.
	Servers []*mcpcap.Cap

	sessionServers []string // names of session-scoped servers, built per session
	logger         *slog.Logger
}

// Build creates the registry, the connection pool and every capability the config declares, and
// registers them at pool scope. It does no I/O beyond scanning skill and command folders: MCP
// servers connect when first listed. On error nothing it started survives.
func Build(ctx context.Context, cfg *Config, opts BuildOptions) (_ *Host, err error) {
	if cfg == nil {
		cfg = &Config{}
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
		IdleTimeout:     cfg.Pool.IdleTimeout,
		Logger:          logger,
		ConfigureClient: mcpcap.RegisterSkillMethods,
	})
	reg.OnClose(pool.Close)
	h := &Host{Config: cfg, Registry: reg, Pool: pool, logger: logger}
	// h is a local, not the result: a failing `return nil, err` has already set the result to
	// nil, and the half-built host must still be closed.
	defer func() {
		if err != nil {
			err = errors.Join(err, h.Close(context.WithoutCancel(ctx)))
		}
	}()

	watch := cfg.Skills.Watching(opts.Watch)
	roots := append(append([]string{}, opts.SkillDirs...), cfg.Skills.Dirs...)
	cmdRoots := append([]string{}, cfg.Commands.Dirs...)
	if opts.DefaultRoots {
		roots = append(roots, skill.DefaultRoots(opts.ProjectDir, opts.HomeDir)...)
		cmdRoots = append(cmdRoots, command.DefaultRoots(opts.ProjectDir, opts.HomeDir)...)
	}
	h.Skills, err = skill.NewManager(&skill.Options{
		Roots:      roots,
		Watch:      watch,
		Debounce:   cfg.Skills.Debounce,
		MaxFolders: cfg.Skills.MaxFolders,
		Logger:     logger,
		Children:   h.skillServer,
	})
	if err != nil {
		return nil, err
	}
	if err := reg.Register(h.Skills, ext.LevelPool, ext.Scope{}); err != nil {
		_ = h.Skills.Close(ctx)
		return nil, err
	}
	h.Commands, err = command.NewFileSource(cmdRoots, &command.FileOptions{
		Watch: watch, Debounce: cfg.Skills.Debounce, Logger: logger,
	})
	if err != nil {
		return nil, err
	}
	if err := reg.Register(h.Commands, ext.LevelPool, ext.Scope{}); err != nil {
		_ = h.Commands.Close(ctx)
		return nil, err
	}
	for _, name := range cfg.MCPServers.Names() {
		s := cfg.MCPServers[name]
		if s.Scope == mcpcap.ScopeSession {
			h.sessionServers = append(h.sessionServers, name)
			continue
		}
		c, err := h.newServer(name, s, connpool.GlobalPartition)
		if err != nil {
			return nil, err
		}
		if err := reg.Register(c, ext.LevelPool, ext.Scope{}); err != nil {
			_ = c.Close(ctx)
			return nil, err
		}
		h.Servers = append(h.Servers, c)
	}
	return h, nil
}

// OpenSession registers, at the session's scope, a private instance of every session-scoped
// server (its own process, its own state). Close the session with Registry.CloseScope.
//
// On error, the servers this call registered are unregistered and closed again.
func (h *Host) OpenSession(ctx context.Context, sessionID string) (err error) {
	if sessionID == "" {
		return fmt.Errorf("open session: empty session id")
	}
	slot := ext.Scope{SessionID: sessionID}
	var added []*mcpcap.Cap
	defer func() {
		if err == nil {
			return
		}
		for _, c := range added {
			err = errors.Join(err, h.Registry.Unregister(ext.LevelSession, slot, c.Name()), c.Close(context.WithoutCancel(ctx)))
		}
	}()
	for _, name := range h.sessionServers {
		c, err := h.newServer(name, h.Config.MCPServers[name], sessionID)
		if err != nil {
			return err
		}
		if err := h.Registry.Register(c, ext.LevelSession, slot); err != nil {
			_ = c.Close(ctx)
			return fmt.Errorf("open session %q: %w", sessionID, err)
		}
		added = append(added, c)
	}
	return nil
}

// Close closes every capability, in scope order, then the connection pool. It is idempotent.
func (h *Host) Close(ctx context.Context) error { return h.Registry.Close(ctx) }

func (h *Host) newServer(name string, s mcpcap.ServerSpec, partition string) (*mcpcap.Cap, error) {
	cfg, err := s.Config(name)
	if err != nil {
		return nil, err
	}
	return mcpcap.New(cfg, mcpcap.WithPool(h.Pool, partition), mcpcap.WithLogger(h.logger))
}

// skillServer is the skill manager's injected factory for a skill's own MCP servers. The server
// is named "<skill>.<server>", shares the pool and is recorded as a child of the skill manager in
// the registry; the extensions.allowed_commands list applies.
func (h *Host) skillServer(_ context.Context, skillName string, decl skill.ServerDecl) (ext.Capability, error) {
	s := mcpcap.ServerSpec{
		Type: decl.Type, Command: decl.Command, Args: decl.Args, Env: decl.Env, Cwd: decl.Cwd,
		URL: decl.URL, Headers: decl.Headers,
	}
	if v, ok := decl.Extra["timeout"].(string); ok {
		if d, err := time.ParseDuration(v); err == nil {
			s.Timeout = d
		}
	}
	name := skillName + "." + decl.Name
	key := "mcp-servers." + decl.Name
	if err := errors.Join(s.Validate(key), s.CheckCommand(key, h.Config.Extensions.AllowedCommands)); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", decl.Source, decl.Line, err)
	}
	c, err := h.newServer(name, s, connpool.GlobalPartition)
	if err != nil {
		return nil, err
	}
	// Record the composition edge so the registry checks cycles and depth (RFC "Composition");
	// the child forgets it when the skill manager closes it.
	child := &skillChild{Cap: c, h: h}
	if err := h.Registry.AddChild(h.Skills, child); err != nil {
		_ = c.Close(context.Background())
		return nil, err
	}
	return child, nil
}

// skillChild is a skill's own MCP server as the skill manager holds it. Its composition edge
// lives as long as it does: the manager closes it when a reload drops or replaces the server, or
// at its own Close, and closing it removes the edge, so a long-running host editing skills does
// not accumulate them. Embedding keeps every interface *mcpcap.Cap implements.
type skillChild struct {
	*mcpcap.Cap
	h *Host
}

// Close forgets the child's composition edge, then closes the server. It is idempotent.
func (c *skillChild) Close(ctx context.Context) error {
	err := c.h.Registry.RemoveChild(c.h.Skills, c)
	if errors.Is(err, ext.ErrNotFound) || errors.Is(err, ext.ErrClosed) {
		err = nil // already forgotten, or the registry is gone with every edge
	}
	return errors.Join(err, c.Cap.Close(ctx))
}

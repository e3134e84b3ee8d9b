package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/host"
	"github.com/agentpool/agentpool/pin"
	"github.com/agentpool/agentpool/trust"
	"github.com/agentpool/agentpool/view"
	"github.com/spf13/cobra"
)

// cliSession is the session scope the CLI queries in, so session-scoped servers are visible too.
const cliSession = "cli"

// hostOpts say how a command wants its host.
type hostOpts struct {
	// watch turns hot reload on.
	watch bool
	// session is the session to open ("" means cliSession); agent narrows the scope to it.
	session, agent string
}

// projectConfigName is the file a project's own config is found under, in the working directory.
const projectConfigName = "agentpool.yaml"

// configs returns the user's config and the project's, as the CLI finds them: --config FILE is
// the user's own and nothing else is looked for; otherwise ./agentpool.yaml is the project's
// (used only once the project is trusted; its imports read only then) and
// $XDG_CONFIG_HOME/agentpool/agentpool.yaml the user's. In the home directory there is no project, so no ./agentpool.yaml is read there.
// An error in the user's config is err; one in the project's is projErr, which is the
// project's problem (host.Options.ProjectConfigErr): a cloned repository whose config does
// not parse must not stop every command run in it.
func configs(opts *options, project, home string) (user, proj *config.Config, projErr, err error) {
	if opts.configFile != "" {
		user, err = config.Load(opts.configFile)
		return user, nil, nil, err
	}
	if project != "" && !sameDir(project, home) {
		if path, ok := projectConfigPath(project); ok {
			store, _ := trustStore()
			proj, projErr = host.LoadProjectConfig(path, project, store, opts.trustProject)
		}
	}
	if dir, dirErr := trust.ConfigDir(); dirErr == nil {
		path := filepath.Join(dir, projectConfigName)
		if _, statErr := os.Stat(path); statErr == nil {
			if user, err = config.Load(path); err != nil {
				return nil, nil, nil, err
			}
		}
	}
	if user == nil {
		user = &config.Config{}
	}
	return user, proj, projErr, nil
}

// projectConfigPath returns the project's agentpool.yaml under the project's real path, and
// whether it exists. The real path, never the way the folder was reached (a symlink, $PWD):
// the config's path is part of each of its servers' fingerprints, and relative paths in it
// resolve against it, so a project trusted in one place must be the same reached through a
// link.
//
// The folder of the user's own config ($XDG_CONFIG_HOME/agentpool) has no project config: its
// agentpool.yaml is the user's.
func projectConfigPath(project string) (string, bool) {
	real, err := trust.RealPath(project)
	if err != nil {
		return "", false
	}
	if dir, err := trust.ConfigDir(); err == nil && sameDir(real, dir) {
		return "", false
	}
	path := filepath.Join(real, projectConfigName)
	_, err = os.Stat(path)
	return path, err == nil
}

// homeDir returns the user's home directory, or "" when $HOME is unset or not absolute: a
// relative one would make the working directory's folders the user's own.
func homeDir() string {
	if home, err := os.UserHomeDir(); err == nil && filepath.IsAbs(home) {
		return home
	}
	return ""
}

// sameDir reports whether a and b are the same folder once symlinks are resolved.
func sameDir(a, b string) bool {
	if a == "" || b == "" {
		return false // "" would be taken for the working directory
	}
	ra, err1 := trust.RealPath(a)
	rb, err2 := trust.RealPath(b)
	return err1 == nil && err2 == nil && ra == rb
}

// trustStore returns the user's trust store ($XDG_CONFIG_HOME/agentpool/trust.json).
func trustStore() (*trust.Store, error) {
	path, err := trust.DefaultPath()
	if err != nil {
		return nil, err
	}
	return trust.NewStore(path), nil
}

// cleanups holds, per host buildHost made, what closeHost does once the host is closed:
// remove the folder the bundled example skills were written to.
var cleanups sync.Map // *host.Host → func()

// buildHost finds the configs (see configs) and builds the host every command uses, serve
// included: with neither --config nor --skills-dir it also serves the bundled example skills
// (bundledExamples, as host.Options.BundledSkillDirs), so every command sees what serve
// serves; closeHost removes their folder. It returns the examples' names. When the project's
// sources were skipped for want of trust it says so, once, on stderr.
func buildHost(ctx context.Context, opts *options, watch bool) (*host.Host, []string, error) {
	project, _ := os.Getwd()
	home := homeDir()
	cfg, projCfg, projErr, err := configs(opts, project, home)
	if err != nil {
		return nil, nil, err
	}
	bundled, examples, cleanup, err := bundledExamples(opts)
	if err != nil {
		return nil, nil, err
	}
	// What the loader found worth saying (an imported server shadowed by the YAML's own, an
	// IDE-only key dropped): said once, never silently.
	say := userOut(opts, os.Stderr)
	for _, w := range cfg.Warnings {
		fmt.Fprintf(say, "agentpool: config: %s\n", w)
	}

	// No config folder (neither $XDG_CONFIG_HOME nor $HOME, as some services run): no trust
	// decisions, so the project is untrusted, and every command still runs.
	store, _ := trustStore()
	h, err := host.Build(ctx, cfg, host.Options{
		SkillDirs:        opts.skillsDirs,
		BundledSkillDirs: bundled,
		NoDefaultRoots:   opts.noDefaultRoots,
		ProjectDir:       project,
		HomeDir:          home,
		ProjectConfig:    projCfg,
		ProjectConfigErr: projErr,
		Trust:            store,
		TrustProject:     opts.trustProject,
		NoWatch:          !watch,
		Logger:           cliLogger(opts),
		PluginState:      pluginStatePath(),
		CodexHome:        os.Getenv("CODEX_HOME"),
		Tokens:           tokenStore(),
		Pins: host.NewPins(cliLogger(opts), func(server string, d pin.Drift) {
			fmt.Fprintf(say, "agentpool: warning: %s: %s\n", server, d.Line(server))
		}),
		Manifests: host.NewManifests(cliLogger(opts)),
	})
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	cleanups.Store(h, cleanup)
	proj := h.Current().Project
	reportUntrusted(say, proj)
	reportPluginProblems(say, h.Plugins())
	if projCfg != nil && proj.Trusted() {
		for _, w := range projCfg.Warnings { // an untrusted project's config is not used
			fmt.Fprintf(say, "agentpool: project config: %s\n", w)
		}
	}
	return h, examples, nil
}

// openHost builds the host (buildHost) with the command's session opened, and returns the
// session, whose scope the command sees.
func openHost(ctx context.Context, opts *options, ho hostOpts) (*host.Host, *host.Session, error) {
	h, _, err := buildHost(ctx, opts, ho.watch)
	if err != nil {
		return nil, nil, err
	}
	session := ho.session
	if session == "" {
		session = cliSession
	}
	var sess *host.Session
	if ho.agent != "" {
		sess, err = h.OpenAgentSession(ctx, session, ho.agent)
	} else {
		sess, err = h.OpenSession(ctx, session)
	}
	if err != nil {
		closeHost(h)
		return nil, nil, err
	}
	return h, sess, nil
}

// viewOptions are the options of a view of scope: for an agent's scope, what the agent sees
// (host.Agent.Include, its own skills in place of the pool's) and its tool filter. Every
// command that compiles a view of a scope passes them, as `serve` does for /mcp/agents/<name>.
func viewOptions(h *host.Host, scope ext.Scope) *view.Options {
	if scope.AgentName == "" {
		return &view.Options{}
	}
	a, err := h.Agent(scope.AgentName)
	if err != nil {
		return &view.Options{} // openHost refused an unknown agent already
	}
	return agentViewOptions(a)
}

// agentViewOptions are the view options of agent a's scopes.
func agentViewOptions(a *host.Agent) *view.Options {
	o := &view.Options{Include: a.Include}
	if a.Config.FiltersTools() {
		o.Tools = a.AllowsTool
	}
	return o
}

// closeHost closes the host with a bound of its own, even when the command's context ended.
func closeHost(h *host.Host) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	_ = h.Close(ctx)
	if cleanup, ok := cleanups.LoadAndDelete(h); ok {
		cleanup.(func())()
	}
}

// withHost makes a cobra RunE that opens the host, runs fn with it and the command's scope,
// and closes it afterwards.
func withHost(opts *options, ho hostOpts, fn func(cmd *cobra.Command, args []string, h *host.Host, scope ext.Scope) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		h, sess, err := openHost(cmd.Context(), opts, ho)
		if err != nil {
			return err
		}
		defer closeHost(h)
		return fn(cmd, args, h, sess.Scope())
	}
}

// withView is withHost for commands that need the compiled view of the scope. Problems
// (a server that did not start) are reported on stderr, one line each, and the rest of the
// view is still shown; the command then exits exitPartial (its --json carries the problems).
func withView(opts *options, fn func(cmd *cobra.Command, args []string, h *host.Host, v *view.View) error) func(*cobra.Command, []string) error {
	return withHost(opts, hostOpts{}, func(cmd *cobra.Command, args []string, h *host.Host, scope ext.Scope) error {
		v, err := view.Compile(cmd.Context(), h.Registry, scope, nil)
		if err != nil {
			return err
		}
		reportProblems(cmd, opts, v)
		if err := fn(cmd, args, h, v); err != nil {
			return err
		}
		return partial(v)
	})
}

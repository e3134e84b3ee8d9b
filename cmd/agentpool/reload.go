package main

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/fswatch"
	"github.com/agentpool/agentpool/gateway"
	"github.com/agentpool/agentpool/host"
	"github.com/agentpool/agentpool/trust"
	"github.com/agentpool/agentpool/view"
)

// ReloadReport is the outcome of the last config reload `serve` tried, for the status page.
type ReloadReport struct {
	// At is when it was tried; zero when none was.
	At time.Time
	// Trigger is what asked for it: "file" (the config file changed) or "SIGHUP".
	Trigger string
	// File is the config file read.
	File string
	// OK is false when the file was refused (Errors say why) and the running configuration
	// kept as it was.
	OK bool
	// Errors are the file's problems, one "file:line:col: key: what" each.
	Errors []string
	// Result is what the reload changed (zero when refused).
	Result host.ReloadResult
}

// reloadStatus keeps the last ReloadReport. Its methods are safe for concurrent use.
type reloadStatus struct {
	mu   sync.Mutex
	last ReloadReport
}

// Last returns the outcome of the last reload tried (At zero when none was).
func (s *reloadStatus) Last() ReloadReport {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

func (s *reloadStatus) set(r ReloadReport) {
	s.mu.Lock()
	s.last = r
	s.mu.Unlock()
}

// reloader follows the user's config file while `serve` runs: an edit of the file (its folder
// is watched, so an editor's write-by-rename is seen) or SIGHUP reads it whole with the
// loader serve started with; a file with any problem is refused, every problem logged at
// error level and kept in Status, and nothing changes; a valid one is applied by
// host.Host.Reload, and agents added or removed get or lose their path (routes).
type reloader struct {
	h    *host.Host
	path string
	// optional: the file is the user's own config, found rather than named (--config), so
	// its absence means an empty config rather than an error.
	optional bool
	routes   *gateway.Routes
	newAgent func(name string) (*gateway.Gateway, error)
	metrics  *gateway.Metrics // counts reloads by result (nil: not counted)
	log      *slog.Logger
	// Status is the last reload's outcome.
	Status reloadStatus

	closeOnce sync.Once
	mu        sync.Mutex // one reload at a time
	filesMu   sync.Mutex
	imports   map[string]bool // the JSON files the config imports (config.Config.Import), followed too
	watcher   *fswatch.Watcher
	sigs      chan os.Signal
	stop      chan struct{}
	done      chan struct{}
}

// reloadDebounce is the quiet time after the last write to the config file before it is
// read: an editor's save is several events.
const reloadDebounce = fswatch.DefaultDebounce

// userConfigPath is the config file serve follows: --config, else the user's own
// ($XDG_CONFIG_HOME/agentpool/agentpool.yaml, followed even before it exists); "" when there
// is no config folder.
func userConfigPath(opts *options) string {
	if opts.configFile != "" {
		if abs, err := filepath.Abs(opts.configFile); err == nil {
			return abs
		}
		return opts.configFile
	}
	dir, err := trust.ConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, projectConfigName)
}

// startReloader starts following path (see reloader); it returns nil with no path.
func startReloader(h *host.Host, path string, optional bool, routes *gateway.Routes, newAgent func(string) (*gateway.Gateway, error), metrics *gateway.Metrics, log *slog.Logger) (*reloader, error) {
	if path == "" {
		return nil, nil
	}
	r := &reloader{h: h, path: filepath.Clean(path), optional: optional, routes: routes, newAgent: newAgent, metrics: metrics, log: log,
		sigs: make(chan os.Signal, 1), stop: make(chan struct{}), done: make(chan struct{})}
	w, err := fswatch.New([]string{filepath.Dir(r.path)}, &fswatch.Options{Debounce: reloadDebounce, MaxDepth: -1, Logger: log},
		func(changed []string) {
			if r.follows(changed) {
				r.reload("file")
			}
		})
	if err != nil {
		return nil, err
	}
	r.watcher = w
	r.follow(r.withPluginFiles(h.Config.Import))
	signal.Notify(r.sigs, syscall.SIGHUP)
	go r.loop()
	return r, nil
}

// follow makes the files the config imports (absolute paths, as the loader resolved them)
// reloads' triggers too, as the config file is: an edit of an imported .mcp.json changes
// the servers as much as one of the YAML. Their folders are watched from now on (a folder
// already watched is not watched twice); a file no longer imported stays watched, harmlessly.
func (r *reloader) follow(imports []string) {
	r.filesMu.Lock()
	defer r.filesMu.Unlock()
	r.imports = map[string]bool{}
	for _, p := range imports {
		r.imports[filepath.Clean(p)] = true
		if err := r.watcher.Add(filepath.Dir(p)); err != nil {
			r.log.Warn("config reload: cannot follow an imported file", "file", p, "err", err)
		}
	}
}

// withPluginFiles returns imports with the files the host's plugins are read from (marketplace
// files, manifests, .mcp.json files, plugin folders) and the plugins' enable state
// (`agentpool plugins enable|disable`): a change of any reloads as one of the config does, so
// a plugin disabled while serving leaves every session's view and its servers stop.
func (r *reloader) withPluginFiles(imports []string) []string {
	files := slices.Concat(imports, r.h.Plugins().Files())
	if state := pluginStatePath(); state != "" {
		files = append(files, state)
	}
	return files
}

// follows reports whether changed (paths the watcher reported) holds the config file, an
// imported file, or a folder of either (a folder is reported when an entry of it is replaced).
func (r *reloader) follows(changed []string) bool {
	r.filesMu.Lock()
	defer r.filesMu.Unlock()
	for _, p := range changed {
		if p == r.path || p == filepath.Dir(r.path) || r.imports[p] {
			return true
		}
		for im := range r.imports {
			if p == filepath.Dir(im) {
				return true
			}
		}
	}
	return false
}

func (r *reloader) loop() {
	defer close(r.done)
	for {
		select {
		case <-r.sigs:
			r.reload("SIGHUP")
		case <-r.stop:
			return
		}
	}
}

// Close stops following the file and SIGHUP (SIGHUP is then ignored rather than ending
// serve: a second one during shutdown must not kill it uncleanly). It is safe on nil.
func (r *reloader) Close() error {
	if r == nil {
		return nil
	}
	var err error
	r.closeOnce.Do(func() {
		signal.Stop(r.sigs)
		signal.Ignore(syscall.SIGHUP)
		close(r.stop)
		<-r.done
		err = r.watcher.Close()
	})
	return err
}

// liveAgentViewOptions are agentViewOptions for a Gateway that outlives reloads: the agent is
// looked up on each compile, so a reload that changes it (its tool filter, its own skills)
// is what the next view uses. The lookup falls back to a, the agent at start, while a removed
// agent's sessions end.
func liveAgentViewOptions(h *host.Host, a *host.Agent) *view.Options {
	cur := func() *host.Agent {
		if now, err := h.Agent(a.Name); err == nil {
			return now
		}
		return a
	}
	return &view.Options{
		Include: func(r ext.Registration) bool { return cur().Include(r) },
		Tools:   func(name string) bool { return cur().AllowsTool(name) },
	}
}

// reload reads the file and applies it, or refuses it (see reloader).
func (r *reloader) reload(trigger string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rep := ReloadReport{At: time.Now(), Trigger: trigger, File: r.path}
	next, err := config.Load(r.path)
	if err != nil && r.optional && removed(r.path) {
		next, err = &config.Config{}, nil // the user's own config removed: no config
	}
	if next != nil {
		r.follow(r.withPluginFiles(next.Import))
	} else if imports := config.ImportsOf(err); imports != nil {
		r.follow(imports) // a file it imports may be what is wrong: its fix is the next reload
	}
	if err == nil {
		for _, w := range next.Warnings {
			r.log.Warn("config: "+w, "file", r.path)
		}
	}
	var res host.ReloadResult
	if err == nil {
		res, err = r.h.Reload(context.Background(), next)
	}
	if err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			rep.Errors = append(rep.Errors, line)
			r.log.Error("config reload refused: the running configuration is kept", "file", r.path, "trigger", trigger, "err", line)
		}
		r.Status.set(rep)
		r.metrics.ConfigReloaded(false)
		return
	}
	rep.OK, rep.Result = true, res
	r.follow(r.withPluginFiles(next.Import)) // the plugins now read may have files of their own
	r.agents(res)
	for _, note := range res.AtRestart {
		r.log.Warn(note, "file", r.path)
	}
	r.log.Info("config reloaded", "file", r.path, "trigger", trigger, "added", res.Added, "removed", res.Removed,
		"changed", res.Changed, "failed", res.Failed)
	r.Status.set(rep)
	r.metrics.ConfigReloaded(true)
}

// removed reports whether the config file at path does not exist. Asked of the file itself,
// never read from Load's error: that error wraps os.ErrNotExist for a file the config imports
// that is missing too, and such a config is refused, not taken for no config.
func removed(path string) bool {
	_, err := os.Stat(path)
	return errors.Is(err, os.ErrNotExist)
}

// agents gives each agent the reload added its path and takes a removed agent's away, ending
// its live sessions. A changed agent keeps its Gateway and sessions: the host replaced what
// they see, and the Gateway's views look the agent up on every compile.
func (r *reloader) agents(res host.ReloadResult) {
	if r.routes == nil {
		return
	}
	for _, key := range res.Removed {
		if name, ok := strings.CutPrefix(key, "agents."); ok {
			if g := r.routes.RemoveAgent(name); g != nil {
				_ = stopGateways(g)
			}
		}
	}
	for _, key := range res.Added {
		if name, ok := strings.CutPrefix(key, "agents."); ok {
			g, err := r.newAgent(name)
			if err != nil {
				r.log.Error("config reload: agent not served", "agent", name, "err", err)
				continue
			}
			if old := r.routes.SetAgent(name, g); old != nil {
				_ = stopGateways(old)
			}
		}
	}
}

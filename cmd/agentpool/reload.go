package main

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/gateway"
	"github.com/agentpool/agentpool/host"
	"github.com/agentpool/agentpool/trust"
	"github.com/agentpool/agentpool/view"
)

// reloader is serve's following of the user's config file (host.Host.Follow) with what serve
// adds: SIGHUP asks for a reload too, each reload is counted (metrics), and agents added or
// removed get or lose their path (routes).
type reloader struct {
	f        *host.Follower
	routes   *gateway.Routes
	newAgent func(name string) (*gateway.Gateway, error)
	log      *slog.Logger

	closeOnce sync.Once
	sigs      chan os.Signal
	stop      chan struct{}
	done      chan struct{}
}

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

// startReloader follows path (see reloader); it returns nil with no path. optional says the
// file is the user's own, found rather than named (host.FollowOptions.Optional); routes (nil
// over stdio) and newAgent serve the agents a reload adds.
func startReloader(ctx context.Context, h *host.Host, path string, optional bool, routes *gateway.Routes, newAgent func(string) (*gateway.Gateway, error), metrics *gateway.Metrics, log *slog.Logger) (*reloader, error) {
	if path == "" {
		return nil, nil
	}
	r := &reloader{routes: routes, newAgent: newAgent, log: log,
		sigs: make(chan os.Signal, 1), stop: make(chan struct{}), done: make(chan struct{})}
	f, err := h.Follow(ctx, host.FollowOptions{Path: path, Optional: optional, Logger: log,
		OnReload: func(rep host.FollowReport) {
			metrics.ConfigReloaded(rep.OK)
			if rep.OK {
				r.agents(rep.Result)
			}
		}})
	if err != nil {
		return nil, err
	}
	r.f = f
	signal.Notify(r.sigs, syscall.SIGHUP)
	go r.loop()
	return r, nil
}

func (r *reloader) loop() {
	defer close(r.done)
	for {
		select {
		case <-r.sigs:
			r.f.Reload("SIGHUP")
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
		err = r.f.Close()
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
		Tools:   func(names ...string) bool { return cur().AllowsTool(names...) },
	}
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

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/agentpool/agentpool/gateway"
	"github.com/agentpool/agentpool/host"
	"github.com/agentpool/agentpool/mcpcap"
	"github.com/agentpool/agentpool/status"
	"github.com/agentpool/agentpool/view"
)

// statusOptions are the status page's options for serve (status.Handler): the pool and
// agents' Gateways, what the host knows (status.FromHost) and readiness. Ready turns true once
// every eager pool server (not lazy) was tried and none is degraded (unless
// server.ready_when_degraded): status.Connect tries them from now until they were, or ctx
// ends. serve tried no server before its first session until then; trying them at start also
// makes the first client's wait shorter. status.Watch says on w when a server, the pool's or
// an agent's, degrades or recovers.
func statusOptions(ctx context.Context, h *host.Host, pool *gateway.Gateway, routes *gateway.Routes, rl *reloader, m *gateway.Metrics, w io.Writer) status.Options {
	var tried atomic.Bool
	servers := func() []*mcpcap.Cap {
		servers := h.Current().Servers
		for _, caps := range status.AgentServers(h, routes.Agents()) {
			servers = append(servers, caps...)
		}
		return servers
	}
	go status.Watch(ctx, h, status.WatchOptions{Agents: func(st *host.State) []string { return st.Config.Agents.Names() }, Report: sayTransitions(w)})
	go func() { status.Connect(ctx, servers()); tried.Store(true) }()
	ready := func() error {
		st := h.Current()
		lenient, degraded := st.Config.Server.ReadyWhenDegraded, []string(nil) // a reload may change it
		check := func(label string, c *mcpcap.Cap) {
			if !lenient && !c.Config().Lazy && c.Status().State == mcpcap.StateDegraded {
				degraded = append(degraded, label)
			}
		}
		for _, c := range st.Servers {
			check(c.Name(), c)
		}
		agents := routes.Agents()
		byAgent := status.AgentServers(h, agents)
		for _, a := range agents {
			for _, c := range byAgent[a] {
				check("agents."+a+"."+c.Name(), c) // as the page and serve's lines name it
			}
		}
		if !tried.Load() {
			return errors.New("the eager servers are still being tried")
		} else if len(degraded) > 0 {
			return fmt.Errorf("degraded: %s (server.ready_when_degraded: true serves regardless)", strings.Join(degraded, ", "))
		}
		return nil
	}
	return status.Options{
		Pool:   pool,
		Agents: routes.AgentGateways,
		Report: func(context.Context) status.Report {
			r := status.FromHost(h, routes.Agents(), m.ServerCalls)
			r.Reload = rl.statusPage()
			return r
		},
		Ready:   ready,
		Version: version,
	}
}

// statusPage is the last reload's outcome as the status page shows it; nil when serve
// follows no config file or tried no reload yet.
func (r *reloader) statusPage() *status.Reload {
	if r == nil {
		return nil
	}
	last := r.f.Last()
	if last.At.IsZero() {
		return nil
	}
	s := &status.Reload{At: last.At, OK: last.OK}
	switch {
	case !last.OK:
		s.Message = last.File + " refused, the running configuration kept: " + strings.Join(last.Errors, "; ")
	case last.Result.Empty():
		s.Message = last.File + " (" + last.Trigger + "): nothing changed"
	default:
		res := last.Result
		var parts []string
		for _, p := range []struct {
			what string
			keys []string
		}{{"added", res.Added}, {"removed", res.Removed}, {"changed", res.Changed}, {"failed", res.Failed}, {"at restart", res.AtRestart}} {
			if len(p.keys) > 0 {
				parts = append(parts, p.what+": "+strings.Join(p.keys, ", "))
			}
		}
		s.Message = last.File + " (" + last.Trigger + ") applied; " + strings.Join(parts, "; ")
	}
	return s
}

// sayTransitions prints on w the CLI's one-line warning for each server that degrades (fails
// at start, or cannot reconnect), and one line when it recovers (status.Watch).
func sayTransitions(w io.Writer) func(status.Transition) {
	return func(t status.Transition) {
		if t.Recovered {
			fmt.Fprintf(w, "agentpool: %s: recovered\n", t.Server)
			return
		}
		fmt.Fprintf(w, "agentpool: warning: %s\n", summary(view.Problem{Capability: t.Server, What: "capability", Err: t.Err}))
	}
}

// withStatus puts the status page, /healthz and /readyz in front of serve's handler.
func withStatus(ctx context.Context, h *host.Host, pool *gateway.Gateway, routes *gateway.Routes, rl *reloader, m *gateway.Metrics, handler http.Handler, w io.Writer) http.Handler {
	return status.Handler(handler, statusOptions(ctx, h, pool, routes, rl, m, w))
}

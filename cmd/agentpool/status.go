package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/gateway"
	"github.com/agentpool/agentpool/host"
	"github.com/agentpool/agentpool/mcpcap"
	"github.com/agentpool/agentpool/status"
	"github.com/agentpool/agentpool/view"
)

// statusOptions are the status page's options for serve (status.Handler): the pool and
// agents' Gateways, what the host knows (status.FromHost) and readiness. Ready turns true once
// every eager pool server (not lazy) was tried and none is degraded (unless
// server.ready_when_degraded): tryEager starts now and ends when they were, or with ctx. serve
// tried no server before its first session until then; trying them at start also makes the
// first client's wait shorter. watchServers says on w when a server degrades or recovers.
func statusOptions(ctx context.Context, h *host.Host, pool *gateway.Gateway, routes *gateway.Routes, rl *reloader, m *gateway.Metrics, w io.Writer) status.Options {
	var tried atomic.Bool
	servers := func() []*mcpcap.Cap {
		servers := h.Current().Servers
		for _, caps := range status.AgentServers(h, routes.Agents()) {
			servers = append(servers, caps...)
		}
		return servers
	}
	go watchServers(ctx, h, servers, w)
	go func() { tryEager(ctx, servers()); tried.Store(true) }()
	ready := func() error {
		lenient, degraded := h.Current().Config.Server.ReadyWhenDegraded, []string(nil) // a reload may change it
		for _, c := range servers() {
			if st := c.Status(); !lenient && !c.Config().Lazy && st.State == mcpcap.StateDegraded {
				degraded = append(degraded, st.Name)
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

// tryEager lists the tools of every server not configured lazy, concurrently, which connects
// it (or, failing that, degrades it): what a first session's compile would do.
func tryEager(ctx context.Context, servers []*mcpcap.Cap) {
	var wg sync.WaitGroup
	for _, c := range servers {
		if c.Config().Lazy {
			continue
		}
		wg.Go(func() { _, _ = c.Tools(ctx) })
	}
	wg.Wait()
}

// watchServers prints the CLI's one-line warning on w for each server of servers() that
// degrades (fails at start, or cannot reconnect), and one line when it recovers, checking at
// every change the pool's view announces (a server degrading or recovering announces its
// tools changed), until ctx ends. It also probes each degraded eager server when its next
// attempt is due: a degraded server recovers only when asked, and a replica kept out of a load
// balancer by /readyz would otherwise never be asked.
func watchServers(ctx context.Context, h *host.Host, servers func() []*mcpcap.Cap, w io.Writer) {
	degraded := map[string]*mcpcap.Cap{} // by name: a reload's new instance of a degraded server is it
	changes := h.Registry.Changes(ctx, ext.Scope{})
	probed := make(chan struct{}, 1)
	probing := false
	var lastProbe time.Time
	for {
		var due []*mcpcap.Cap
		var next time.Time
		list := servers()
		for _, c := range list {
			switch st := c.Status(); {
			case st.State == mcpcap.StateDegraded && degraded[st.Name] == nil:
				degraded[st.Name] = c
				fmt.Fprintf(w, "agentpool: warning: %s\n", summary(view.Problem{Capability: st.Name, What: "capability", Err: st.LastError}))
				fallthrough
			case st.State == mcpcap.StateDegraded && !c.Config().Lazy:
				due = append(due, c)
				if next.IsZero() || st.NextAttempt.Before(next) {
					next = st.NextAttempt
				}
			case st.State == mcpcap.StateConnected && (degraded[st.Name] == c || degraded[st.Name] != nil && !slices.Contains(list, degraded[st.Name])): // it, or its reload's successor; not a same-named agent's server
				delete(degraded, st.Name)
				fmt.Fprintf(w, "agentpool: %s: recovered\n", st.Name)
			}
		}
		timer := time.NewTimer(max(time.Until(next), time.Until(lastProbe.Add(time.Second)))) // at most one probe a second
		if probing || len(due) == 0 {
			timer.Stop() // nothing to probe, or a probe running
		}
		select {
		case _, ok := <-changes:
			if !ok {
				return // the timer, unreferenced, is collected
			}
		case <-probed:
			probing, lastProbe = false, time.Now()
		case <-timer.C:
			probing = true
			go func() { tryEager(ctx, due); probed <- struct{}{} }()
		}
		timer.Stop()
	}
}

// withStatus puts the status page, /healthz and /readyz in front of serve's handler.
func withStatus(ctx context.Context, h *host.Host, pool *gateway.Gateway, routes *gateway.Routes, rl *reloader, m *gateway.Metrics, handler http.Handler, w io.Writer) http.Handler {
	return status.Handler(handler, statusOptions(ctx, h, pool, routes, rl, m, w))
}

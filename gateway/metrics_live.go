package gateway

import (
	"github.com/agentpool/agentpool/ext"
	"github.com/prometheus/client_golang/prometheus"
)

// The live numbers (sessions, upstream processes, reconnects, degraded servers) are read at
// scrape time rather than kept up to date: nothing on a call's or a session's path pays for
// them, and they cannot drift from the state they describe.

var (
	sessionsDesc = prometheus.NewDesc("agentpool_sessions",
		"Live MCP client sessions, by agent (\"\" for the pool's view at /mcp).", []string{"agent"}, nil)
	processesDesc = prometheus.NewDesc("agentpool_upstream_processes",
		"Live upstream server processes (stdio servers with a pid; a pooled process shared by several sessions counts once).", nil, nil)
	reconnectsDesc = prometheus.NewDesc("agentpool_upstream_reconnects_total",
		"Successful reconnects of an upstream server, summed over its live instances.", []string{"server"}, nil)
	degradedDesc = prometheus.NewDesc("agentpool_upstream_degraded",
		"1 while an upstream server (any live instance of it) is degraded, else 0.", []string{"server"}, nil)
)

// liveCollector is Metrics' prometheus.Collector of the live numbers.
type liveCollector Metrics

// Describe implements prometheus.Collector.
func (c *liveCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- sessionsDesc
	if c.upstream != nil {
		ch <- processesDesc
		ch <- reconnectsDesc
		ch <- degradedDesc
	}
}

// Collect implements prometheus.Collector: sessions per gateway's agent, and the upstream
// servers every gateway's base scope and live sessions see, with the children of those that
// hold some (ext.Composite: skills' own servers), each capability once.
func (c *liveCollector) Collect(ch chan<- prometheus.Metric) {
	m := (*Metrics)(c)
	m.gwMu.Lock()
	gws := make([]*Gateway, 0, len(m.gateways))
	for g := range m.gateways {
		gws = append(gws, g)
	}
	m.gwMu.Unlock()

	sessions := map[string]int{}
	seen := map[ext.Capability]bool{}
	pids := map[int]bool{}
	reconnects := map[string]int{}
	degraded := map[string]bool{}
	// noteCap notes c and, when it holds children (a session's skill servers: each skill's own
	// MCP servers are its children, not registrations), theirs.
	var noteCap func(c ext.Capability)
	noteCap = func(c ext.Capability) {
		if seen[c] {
			return
		}
		seen[c] = true
		if comp, ok := c.(ext.Composite); ok {
			for _, k := range comp.Children() {
				noteCap(k)
			}
		}
		st, ok := m.upstream(c)
		if !ok {
			return
		}
		if st.PID > 0 {
			pids[st.PID] = true
		}
		reconnects[st.Server] += st.Reconnects
		degraded[st.Server] = degraded[st.Server] || st.Degraded
	}
	note := func(reg *ext.Registry, scope ext.Scope) {
		for _, r := range reg.Registrations(scope) {
			noteCap(r.Capability)
		}
	}
	for _, g := range gws {
		scopes := g.liveScopes()
		sessions[g.opts.Scope.AgentName] += len(scopes)
		if m.upstream == nil {
			continue
		}
		note(g.reg, g.opts.Scope)
		for _, s := range scopes {
			note(g.reg, s)
		}
	}
	for agent, n := range sessions {
		ch <- prometheus.MustNewConstMetric(sessionsDesc, prometheus.GaugeValue, float64(n), agent)
	}
	if m.upstream == nil {
		return
	}
	ch <- prometheus.MustNewConstMetric(processesDesc, prometheus.GaugeValue, float64(len(pids)))
	for server, n := range reconnects {
		ch <- prometheus.MustNewConstMetric(reconnectsDesc, prometheus.CounterValue, float64(n), server)
		d := 0.0
		if degraded[server] {
			d = 1
		}
		ch <- prometheus.MustNewConstMetric(degradedDesc, prometheus.GaugeValue, d, server)
	}
}

// liveScopes returns the scopes of g's live sessions (opened, not ended).
func (g *Gateway) liveScopes() []ext.Scope {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]ext.Scope, 0, len(g.sessions))
	for _, s := range g.sessions {
		if !s.is(stateOpening) {
			out = append(out, s.scope)
		}
	}
	return out
}

// countChanges counts the change events of g's base scope (the pool's capabilities) until
// Close.
func (g *Gateway) countChanges(m *Metrics) {
	defer g.wg.Done()
	for ev := range g.reg.Changes(g.closing, g.opts.Scope) {
		m.changeEvent(ev.Kind)
	}
}

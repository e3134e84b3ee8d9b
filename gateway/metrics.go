package gateway

import (
	dto "github.com/prometheus/client_model/go"
	"net/http"
	"sync"

	"github.com/agentpool/agentpool/ext"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// MetricsPath is where `agentpool serve` serves the metrics (Gateway.MetricsHandler).
const MetricsPath = "/metrics"

// callBuckets are the tool-call latency buckets, in seconds: from a call passed through to a
// local stdio server (a few hundred µs) to a long tool run (minutes).
var callBuckets = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120}

// UpstreamStat is what the metrics need of one upstream MCP server: the host knows its
// servers' state (package mcpcap), the gateway does not, so MetricsOptions.Upstream reads it.
type UpstreamStat struct {
	// Server is the server's name (its mcp_servers key).
	Server string
	// PID is its process id when it is a live stdio server, else 0.
	PID int
	// Reconnects counts its successful connections after the first.
	Reconnects int
	// Degraded is set while the server is degraded (its tools withheld).
	Degraded bool
}

// MetricsOptions configure Metrics; nil means none.
type MetricsOptions struct {
	// Upstream reports c's numbers when c is an upstream MCP server (ok true), at every
	// scrape, for every capability a live session or a gateway's base scope sees. It must do
	// no I/O. Nil: no upstream metrics.
	Upstream func(c ext.Capability) (UpstreamStat, bool)
}

// Metrics are the Prometheus metrics of one or more Gateways (the pool's and every agent's
// share one: Options.Metrics), on a registry of their own (not the global default, so that
// several in one process do not collide). The methods of a nil *Metrics do nothing. See the
// package doc for the names and what they count.
type Metrics struct {
	reg      *prometheus.Registry
	calls    *prometheus.CounterVec
	errors   *prometheus.CounterVec
	duration *prometheus.HistogramVec
	reloads  *prometheus.CounterVec
	changes  *prometheus.CounterVec
	upstream func(ext.Capability) (UpstreamStat, bool)
	handler  http.Handler

	mu     sync.RWMutex
	byTool map[toolKey]*toolMetrics // label children, resolved once per (server, tool)

	gwMu     sync.Mutex
	gateways map[*Gateway]bool // the gateways whose sessions and scopes the collector reads
}

// toolKey names a tool as its capability knows it.
type toolKey struct{ server, tool string }

// toolMetrics are one tool's label children.
type toolMetrics struct {
	calls, errors prometheus.Counter
	duration      prometheus.Observer
}

// NewMetrics returns Metrics with the Go runtime's and the process's collectors registered
// beside agentpool's own.
func NewMetrics(opts *MetricsOptions) *Metrics {
	var o MetricsOptions
	if opts != nil {
		o = *opts
	}
	tool := []string{"server", "tool"}
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "agentpool_tool_calls_total",
			Help: "Tool calls through the gateway, by upstream server (capability) and tool (its own name)."}, tool),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "agentpool_tool_call_errors_total",
			Help: "Tool calls that failed: a JSON-RPC or transport error, or a result with isError set."}, tool),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "agentpool_tool_call_duration_seconds",
			Help: "Tool call latency through the gateway, from routing to the result.", Buckets: callBuckets}, tool),
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "agentpool_config_reloads_total",
			Help: "Config reloads, by result (ok, error)."}, []string{"result"}),
		changes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "agentpool_change_events_total",
			Help: "Change events of the pool's capabilities, by kind."}, []string{"kind"}),
		upstream: o.Upstream,
		byTool:   map[toolKey]*toolMetrics{},
		gateways: map[*Gateway]bool{},
	}
	// Both results and every kind exist from the start, at 0: a rate() needs the series
	// before the first increment.
	for _, r := range []string{"ok", "error"} {
		m.reloads.WithLabelValues(r)
	}
	for _, k := range []ext.ChangeKind{ext.ToolsChanged, ext.ResourcesChanged, ext.PromptsChanged, ext.SkillsChanged, ext.CommandsChanged} {
		m.changes.WithLabelValues(string(k))
	}
	m.reg.MustRegister(m.calls, m.errors, m.duration, m.reloads, m.changes, (*liveCollector)(m),
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.handler = promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
	return m
}

// Registry returns the registry the metrics are on, for more collectors or a test's Gather.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the metrics in the Prometheus exposition formats, unguarded (see
// Gateway.MetricsHandler for the guarded one serve mounts).
func (m *Metrics) Handler() http.Handler { return m.handler }

// ConfigReloaded counts one config reload, successful or not
// (agentpool_config_reloads_total{result="ok"|"error"}).
func (m *Metrics) ConfigReloaded(ok bool) {
	if m == nil {
		return
	}
	r := "ok"
	if !ok {
		r = "error"
	}
	m.reloads.WithLabelValues(r).Inc()
}

// changeEvent counts one change event of kind.
func (m *Metrics) changeEvent(kind ext.ChangeKind) {
	m.changes.WithLabelValues(string(kind)).Inc()
}

// tool returns the label children of (server, tool), resolving them on the first call.
func (m *Metrics) tool(server, tool string) *toolMetrics {
	k := toolKey{server, tool}
	m.mu.RLock()
	t := m.byTool[k]
	m.mu.RUnlock()
	if t != nil {
		return t
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if t = m.byTool[k]; t == nil {
		t = &toolMetrics{calls: m.calls.WithLabelValues(server, tool), errors: m.errors.WithLabelValues(server, tool),
			duration: m.duration.WithLabelValues(server, tool)}
		m.byTool[k] = t
	}
	return t
}

// add makes g's sessions and scopes part of what the collector reads; remove undoes it.
func (m *Metrics) add(g *Gateway) {
	m.gwMu.Lock()
	m.gateways[g] = true
	m.gwMu.Unlock()
}

func (m *Metrics) remove(g *Gateway) {
	m.gwMu.Lock()
	delete(m.gateways, g)
	m.gwMu.Unlock()
}

// ServerCalls returns the tool calls routed to server and how many of them failed, summed
// over its tools, as agentpool_tool_calls_total and agentpool_tool_call_errors_total count
// them; ok is false when no call to it was counted (or m is nil). For the status page.
func (m *Metrics) ServerCalls(server string) (calls, errs int64, ok bool) {
	if m == nil {
		return 0, 0, false
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	for k, t := range m.byTool {
		if k.server != server {
			continue
		}
		ok = true
		calls += counterValue(t.calls)
		errs += counterValue(t.errors)
	}
	return calls, errs, ok
}

// counterValue reads a counter's value.
func counterValue(c prometheus.Counter) int64 {
	var d dto.Metric
	if err := c.Write(&d); err != nil || d.Counter == nil {
		return 0
	}
	return int64(d.Counter.GetValue())
}

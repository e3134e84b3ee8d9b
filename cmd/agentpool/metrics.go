package main

import (
	"net/http"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/gateway"
	"github.com/agentpool/agentpool/host"
	"github.com/agentpool/agentpool/mcpcap"
	"github.com/prometheus/client_golang/prometheus"
)

// serveMetrics returns the metrics `serve` shares among its gateways (the pool's and every
// agent's), served at /metrics (withMetrics), with h's drifted definitions (pins).
func serveMetrics(h *host.Host) *gateway.Metrics {
	m := gateway.NewMetrics(&gateway.MetricsOptions{Upstream: upstreamStat})
	m.Registry().MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "agentpool_pins_drifted",
		Help: "MCP server definitions that differ from their pins (changed, new or removed)."}, h.PinsDrifted))
	return m
}

// upstreamStat reads an MCP server capability's numbers for the metrics; the gateway cannot
// (it never imports a capability package). Status does no I/O. The server is a *mcpcap.Cap or
// embeds one (a skill's own server, as the host wraps it).
func upstreamStat(c ext.Capability) (gateway.UpstreamStat, bool) {
	mc, ok := c.(interface{ Status() mcpcap.Status })
	if !ok {
		return gateway.UpstreamStat{}, false
	}
	st := mc.Status()
	return gateway.UpstreamStat{Server: st.Name, PID: st.PID, Reconnects: st.Reconnects, Degraded: st.State == mcpcap.StateDegraded}, true
}

// withMetrics serves pool's metrics at gateway.MetricsPath (behind pool's Origin and token
// checks) and everything else with h.
func withMetrics(h http.Handler, pool *gateway.Gateway) http.Handler {
	metrics := pool.MetricsHandler()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == gateway.MetricsPath {
			metrics.ServeHTTP(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}

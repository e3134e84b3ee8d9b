package gateway

import "net/http"

// MetricsHandler serves Options.Metrics (404 when there are none) behind g's own HTTP checks:
// the Host (a loopback listener, a loopback Host), the Origin and, when Options.Token is set,
// the bearer token, as for /mcp. Prometheus sends a bearer token with `authorization:
// {credentials: …}` in its scrape config; metrics name the upstream servers and tools, which a
// token-protected gateway keeps to its token holders. With Options.Auth only the static token
// passes (requireOperator): an OAuth user's token is no operator's.
func (g *Gateway) MetricsHandler() http.Handler {
	return g.operatorChecks(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m := g.opts.Metrics
		if m == nil {
			http.Error(w, "Not Found: metrics are not enabled", http.StatusNotFound)
			return
		}
		m.Handler().ServeHTTP(w, r)
	}))
}

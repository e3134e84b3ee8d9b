package gateway

import (
	"fmt"
	"net/http"
)

// MetricsHandler serves Options.Metrics (404 when there are none) behind g's own HTTP checks:
// the Origin and, when Options.Token is set, the bearer token, as for /mcp. Prometheus sends a
// bearer token with `authorization: {credentials: …}` in its scrape config; metrics name the
// upstream servers and tools, which a token-protected gateway keeps to its token holders.
func (g *Gateway) MetricsHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("Origin"); !g.originAllowed(o) {
			http.Error(w, fmt.Sprintf("Forbidden: origin %q is not allowed", o), http.StatusForbidden)
			return
		}
		if !g.authorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="agentpool"`)
			http.Error(w, "Unauthorized: a valid bearer token is required", http.StatusUnauthorized)
			return
		}
		m := g.opts.Metrics
		if m == nil {
			http.Error(w, "Not Found: metrics are not enabled", http.StatusNotFound)
			return
		}
		m.Handler().ServeHTTP(w, r)
	})
}

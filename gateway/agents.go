package gateway

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
)

// Paths Mux serves.
const (
	// PoolPath serves the pool's view.
	PoolPath = "/mcp"
	// AgentsPath is the prefix of each agent's path, AgentsPath + name.
	AgentsPath = "/mcp/agents/"
)

// Mux returns the HTTP handler of `agentpool serve`: pool's handler at PoolPath and, for each
// agent, that agent's Gateway (its Options.Scope naming the agent) at AgentsPath + name.
// Anything under AgentsPath that is not an agent's path is 404 with a body naming the agents
// there are, once the request passed pool's Origin and token checks (a caller those refuse
// learns no agent name). Other paths are the standard 404.
func Mux(pool *Gateway, agents map[string]*Gateway) http.Handler {
	mux := http.NewServeMux()
	mux.Handle(PoolPath, pool.Handler())
	names := slices.Sorted(maps.Keys(agents))
	for _, name := range names {
		mux.Handle(AgentsPath+name, agents[name].Handler())
	}
	known := "no agents are configured (config agents:)"
	if len(names) > 0 {
		known = "agents: " + strings.Join(names, ", ")
	}
	mux.HandleFunc(AgentsPath, func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("Origin"); !pool.originAllowed(o) {
			http.Error(w, fmt.Sprintf("Forbidden: origin %q is not allowed", o), http.StatusForbidden)
			return
		}
		if !pool.authorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="agentpool"`)
			http.Error(w, "Unauthorized: a valid bearer token is required", http.StatusUnauthorized)
			return
		}
		name := strings.TrimPrefix(r.URL.Path, AgentsPath)
		http.Error(w, fmt.Sprintf("Not Found: no agent %q; %s", name, known), http.StatusNotFound)
	})
	return mux
}

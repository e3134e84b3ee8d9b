package gateway

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/agentpool/agentpool/gateway/internal/lane"
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
// learns no agent name). With Auth it is checked as the agent's path would be (its resource,
// its scopes), and neither its 404, which names no agent then, nor its resource metadata,
// served for any name, tells whether an agent exists. Other paths are the standard 404. The agents can change while it
// serves: see Routes.
func Mux(pool *Gateway, agents map[string]*Gateway) *Routes {
	r := &Routes{pool: pool, poolH: pool.Handler(), agents: map[string]agentRoute{}}
	r.unknown = chain(pool.requireHost, pool.requireOrigin, r.requireAgentToken)(http.HandlerFunc(r.serveUnknown))
	for name, g := range agents {
		r.agents[name] = agentRoute{g: g, h: g.Handler()}
	}
	return r
}

// Routes is the handler Mux returns. Its agents follow a config reload: SetAgent adds or
// replaces an agent's Gateway, RemoveAgent takes one away (its path is 404 from then on).
// It is safe for concurrent use.
type Routes struct {
	pool    *Gateway
	poolH   http.Handler
	unknown http.Handler // a path under AgentsPath that is no agent's, behind pool's checks

	mu     sync.RWMutex
	agents map[string]agentRoute
	lane   *lane.Lane // Listen's; nil before
}

type agentRoute struct {
	g *Gateway
	h http.Handler
}

// SetAgent serves g at AgentsPath + name and returns the Gateway it replaces (nil when none),
// which the caller closes: its sessions are not ended here.
func (rt *Routes) SetAgent(name string, g *Gateway) (old *Gateway) {
	h := g.Handler()
	rt.mu.Lock()
	defer rt.mu.Unlock()
	old = rt.agents[name].g
	rt.agents[name] = agentRoute{g: g, h: h}
	if rt.lane != nil {
		g.lane.Store(rt.lane)
	}
	return old
}

// RemoveAgent stops serving agent name and returns its Gateway (nil when none), which the
// caller closes to end its live sessions. Requests to its path are 404 from then on.
func (rt *Routes) RemoveAgent(name string) *Gateway {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	old := rt.agents[name].g
	delete(rt.agents, name)
	return old
}

// Agents returns the names of the agents served, sorted.
func (rt *Routes) Agents() []string {
	rt.mu.RLock()
	defer rt.mu.RUnlock()
	return slices.Sorted(maps.Keys(rt.agents))
}

// AgentGateways returns each served agent's Gateway by its name.
func (rt *Routes) AgentGateways() map[string]*Gateway {
	rt.mu.RLock()
	defer rt.mu.RUnlock()
	m := make(map[string]*Gateway, len(rt.agents))
	for name, a := range rt.agents {
		m[name] = a.g
	}
	return m
}

// Gateways returns the pool's Gateway and then each agent's, in name order.
func (rt *Routes) Gateways() []*Gateway {
	rt.mu.RLock()
	defer rt.mu.RUnlock()
	gs := []*Gateway{rt.pool}
	for _, name := range slices.Sorted(maps.Keys(rt.agents)) {
		gs = append(gs, rt.agents[name].g)
	}
	return gs
}

// ServeHTTP routes r to the pool's or an agent's Gateway (see Mux), and, with Options.Auth,
// ResourceMetadataPath + a path to that path's resource metadata.
func (rt *Routes) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	if rest, ok := strings.CutPrefix(path, ResourceMetadataPath); ok {
		rt.serveResourceMetadata(w, r, rest)
		return
	}
	route, agents, ok := rt.route(path)
	switch {
	case ok:
		route.h.ServeHTTP(w, r)
	case agents:
		rt.unknown.ServeHTTP(w, r)
	default:
		http.NotFound(w, r)
	}
}

// route returns what serves path: the pool's Gateway at PoolPath, or the agent's that its
// name under AgentsPath names. agents reports whether path is under AgentsPath (ok false
// there: a name no agent has).
func (rt *Routes) route(path string) (r agentRoute, agents, ok bool) {
	if path == PoolPath {
		return agentRoute{g: rt.pool, h: rt.poolH}, false, true
	}
	name, agents := strings.CutPrefix(path, AgentsPath)
	if !agents {
		return r, false, false
	}
	rt.mu.RLock()
	defer rt.mu.RUnlock()
	r, ok = rt.agents[name]
	return r, true, ok
}

// requireAgentToken is requireToken as the Gateway of the agent r's path names would apply
// it, for a path that is no agent's: with Auth, the token is checked for that path's resource
// and scopes, so that the answer is the one an agent's path gives.
func (rt *Routes) requireAgentToken(next http.Handler) http.Handler {
	g := rt.pool
	if g.opts.Auth == nil {
		return g.requireToken(next)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g.opts.Token != "" && g.authorized(r) {
			next.ServeHTTP(w, r)
			return
		}
		name := strings.TrimPrefix(r.URL.Path, AgentsPath)
		if r, ok := g.checkTokenAt(w, r, AgentsPath+name, g.scopesAt(name)); ok {
			next.ServeHTTP(w, r)
		}
	})
}

// serveUnknown answers a path under AgentsPath that is no agent's with the agents there are
// (with Auth, with none: see Mux).
func (rt *Routes) serveUnknown(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, AgentsPath)
	if rt.pool.opts.Auth != nil && TokenInfo(r.Context()) != nil {
		http.Error(w, fmt.Sprintf("Not Found: no agent %q", name), http.StatusNotFound)
		return
	}
	known := "no agents are configured (config agents:)"
	if names := rt.Agents(); len(names) > 0 {
		known = "agents: " + strings.Join(names, ", ")
	}
	http.Error(w, fmt.Sprintf("Not Found: no agent %q; %s", name, known), http.StatusNotFound)
}

// serveResourceMetadata serves the resource metadata of the Gateway at path (404 when none
// serves there, or it has no Auth).
func (rt *Routes) serveResourceMetadata(w http.ResponseWriter, r *http.Request, path string) {
	g := rt.pool
	if path != PoolPath {
		name, ok := strings.CutPrefix(path, AgentsPath)
		rt.mu.RLock()
		route, known := rt.agents[name]
		rt.mu.RUnlock()
		if ok && !known && name != "" && g.opts.Auth != nil {
			// Served as if the agent existed: the metadata is public, and whether an agent
			// exists is told only to a caller its path admits.
			g.requireHost(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				g.serveMetadataAt(w, r, AgentsPath+name, g.scopesAt(name))
			})).ServeHTTP(w, r)
			return
		}
		if !ok || !known {
			http.NotFound(w, r)
			return
		}
		g = route.g
	}
	if g.opts.Auth == nil {
		http.NotFound(w, r)
		return
	}
	g.metadata.ServeHTTP(w, r)
}

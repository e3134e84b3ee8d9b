package gateway

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/agentpool/agentpool/gateway/internal/heldbody"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The gateway's HTTP checks, each a middleware as http.MaxBytesHandler is, composed once per
// Gateway by New: userChecks (requireHost, requireOrigin, requireToken) guard the MCP routes,
// operatorChecks (requireHost, requireOrigin, requireOperator) the status page and /metrics.
// A refused request is answered by the check and reaches nothing after it.
//
// Origin is not left to http.CrossOriginProtection, whose answers differ from the MCP
// transport's rule: it lets every GET and HEAD through (the SSE stream, the status page and
// /metrics must refuse a foreign page), trusts an Origin equal to the Host (which a page
// whose name was rebound to the loopback sends), and cannot admit loopback origins on any port.

// passesUserChecks reports whether r passes userChecks without OAuth (Options.Auth: the lane,
// which answers no refusal itself, never serves a gateway with it): requireHost,
// requireOrigin and requireToken's static token, in that order, by the same functions. A
// check added to userChecks is added here too.
func (g *Gateway) passesUserChecks(r *http.Request) bool {
	return g.opts.Auth == nil && g.hostAllowed(r) && g.originAllowed(r.Header.Get("Origin")) && g.authorized(r)
}

// middleware is a check or step in front of a handler.
type middleware func(http.Handler) http.Handler

// chain composes ms so that the first runs first.
func chain(ms ...middleware) middleware {
	return func(h http.Handler) http.Handler {
		for i := len(ms) - 1; i >= 0; i-- {
			h = ms[i](h)
		}
		return h
	}
}

// requireHost answers 403 to a request whose Host fails hostAllowed (the go-sdk's check,
// which calls passed through and the routes outside /mcp never reach).
func (g *Gateway) requireHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !g.hostAllowed(r) {
			http.Error(w, fmt.Sprintf("Forbidden: invalid Host header %q", r.Host), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// requireOrigin answers 403 to a request whose Origin fails originAllowed.
func (g *Gateway) requireOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("Origin"); !g.originAllowed(o) {
			http.Error(w, fmt.Sprintf("Forbidden: origin %q is not allowed", o), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// requireToken passes a request with the static token (Options.Token; no identity) or, with
// Options.Auth, an access token, whose identity it then carries (TokenInfo); else 401
// (checkToken: 403, 503). With neither option it checks nothing.
func (g *Gateway) requireToken(next http.Handler) http.Handler {
	if g.opts.Token == "" && g.opts.Auth == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g.opts.Token != "" && g.authorized(r) {
			next.ServeHTTP(w, r)
			return
		}
		if g.opts.Auth != nil {
			if r, ok := g.checkToken(w, r); ok {
				next.ServeHTTP(w, r)
			}
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="agentpool"`)
		http.Error(w, "Unauthorized: a valid bearer token is required", http.StatusUnauthorized)
	})
}

// requireOperator is requireToken for the operators' routes, except that with Options.Auth
// only the static token passes (none configured: 403 for everyone, saying why): they show
// every user's sessions and the servers' errors.
func (g *Gateway) requireOperator(next http.Handler) http.Handler {
	if g.opts.Auth == nil {
		return g.requireToken(next)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case g.opts.Token == "":
			http.Error(w, "Forbidden: with OAuth (server.auth) this page is the operators': set server.token and send it", http.StatusForbidden)
		case !g.authorized(r):
			http.Error(w, "Forbidden: this page needs the operators' token (server.token), not a user's", http.StatusForbidden)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// requireSessionUser answers 403 to a request naming a live session that another user
// opened (Auth): a session ID is no credential, and a session's servers are its user's.
func (g *Gateway) requireSessionUser(next http.Handler) http.Handler {
	if g.opts.Auth == nil {
		return next // every session's user is ""
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sid := r.Header.Get(sessionHeader)
		if s := g.lookup(sid); sid != "" && s != nil && s.user != userOf(r) {
			g.log.Warn("session refused to another user", "session", sid, "user", userOf(r))
			http.Error(w, "Forbidden: the session belongs to another user", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// guardedWrites bounds every write of next (guardWrites).
func guardedWrites(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(guardWrites(w), r)
	})
}

// holdBody reads the body, at most limit bytes, before next runs (over: a JSON-RPC error,
// 413; unreadable: 400). next reads it again from r.Body, or takes it whole with heldbody.Of.
func holdBody(limit int64) middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, err := heldbody.Read(w, r, limit)
			if err != nil {
				var tooBig *http.MaxBytesError
				if errors.As(err, &tooBig) {
					writeRPCError(w, http.StatusRequestEntityTooLarge, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest,
						fmt.Sprintf("request body exceeds %d bytes", tooBig.Limit))
					return
				}
				http.Error(w, "Bad Request: "+err.Error(), http.StatusBadRequest)
				return
			}
			heldbody.Hold(r, body)
			next.ServeHTTP(w, r)
		})
	}
}

// hostAllowed is the go-sdk's check of /mcp against DNS rebinding, for the handlers outside
// it: a request that reached a loopback listener must name a loopback host. A browser sends no
// Origin with a same-origin GET, so a page whose name was rebound to 127.0.0.1 is caught by
// its Host (its own name), not by its Origin. With Auth.Resource, its host passes too: a TLS
// reverse proxy on the same machine that keeps the client's Host header (Caddy's and
// Traefik's default) sends it, and a rebound page names its own domain, never that one.
func (g *Gateway) hostAllowed(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || local == nil || !loopbackAddr(local) || isLoopback(r.Host) {
		return true
	}
	return g.opts.Auth != nil && g.opts.Auth.names(r.Host)
}

// loopbackAddr reports whether a is a loopback address (isLoopback of its string, without
// making one for a TCP address).
func loopbackAddr(a net.Addr) bool {
	if t, ok := a.(*net.TCPAddr); ok {
		return t.IP.IsLoopback()
	}
	return isLoopback(a.String())
}

// isLoopback reports whether addr (host, or host:port) is localhost or a loopback address.
func isLoopback(addr string) bool {
	host := strings.Trim(addr, "[]") // no port
	if strings.Contains(addr, ":") { // else SplitHostPort fails, and makes its error to say so
		if h, _, err := net.SplitHostPort(addr); err == nil {
			host = h
		}
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// originAllowed applies the MCP transport's rule against DNS rebinding: a request from a
// browser page carries Origin, and only loopback origins (any scheme and port) and those
// configured in Options.AllowedOrigins may reach the server. No Origin (a non-browser
// client) is fine.
func (g *Gateway) originAllowed(origin string) bool {
	if origin == "" {
		return true
	}
	for _, o := range g.opts.AllowedOrigins {
		if strings.EqualFold(strings.TrimSuffix(o, "/"), origin) {
			return true
		}
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false // "null" (a sandboxed or file: page) included
	}
	return isLoopback(u.Hostname())
}

// authorized checks the static bearer token (Options.Token), in constant time: both sides
// are hashed first, so neither the token's bytes nor its length leak through timing.
func (g *Gateway) authorized(r *http.Request) bool {
	if g.opts.Token == "" {
		return true
	}
	tok, ok := bearerToken(r)
	if !ok {
		return false
	}
	got, want := sha256.Sum256([]byte(tok)), sha256.Sum256([]byte(g.opts.Token))
	return subtle.ConstantTimeCompare(got[:], want[:]) == 1
}

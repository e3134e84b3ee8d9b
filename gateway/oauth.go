package gateway

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// ResourceMetadataPath is where the gateway's OAuth protected resource metadata (RFC 9728)
// is served: ResourceMetadataPath + PoolPath for the pool, + AgentsPath + name for an agent,
// the path-suffixed form the MCP authorization specification has clients try first.
const ResourceMetadataPath = "/.well-known/oauth-protected-resource"

// AgentScopePrefix + an agent's name is the scope Auth.AgentScopes requires at that agent's
// path.
const AgentScopePrefix = "agent:"

// Auth makes a Gateway's HTTP routes an OAuth 2.1 protected resource, as the MCP
// authorization specification describes: every request carries a bearer access token that
// Verify accepts for the path's resource URL, with the scopes required there; a request
// without one gets 401 and a WWW-Authenticate challenge naming the resource metadata, whose
// authorization servers tell the client where to get a token. The token's subject is the
// session's user: a session answers only requests of the user who opened it, so that one
// user never reaches another's session, nor the session-scoped servers it started, whatever
// session ID they present.
type Auth struct {
	// Verify checks a bearer token presented at resource (the URL of the path asked for,
	// Resource + PoolPath or Resource + AgentsPath + name) and returns what it grants, its
	// UserID the token's subject. An error wrapping auth.ErrInvalidToken is the client's (401,
	// error="invalid_token"); any other error means the token could not be checked now (503).
	Verify func(ctx context.Context, token, resource string) (*auth.TokenInfo, error)
	// Resource is the base URL clients reach the gateway at ("https://agentpool.example"),
	// with no path; the resource of each path is Resource + the path. Empty: http:// and the
	// request's Host on a loopback listener, the listener's own address otherwise, so that no
	// client can choose the audience a token must have by choosing its Host header.
	Resource string
	// AuthorizationServers are the issuer URLs of the servers that issue tokens for it,
	// listed in the resource metadata.
	AuthorizationServers []string
	// Scopes are required of every token, at every path.
	Scopes []string
	// AgentScopes requires, at AgentsPath + name, the scope AgentScopePrefix + name as well.
	AgentScopes bool
}

// identityKey carries the verified token of a request (*auth.TokenInfo) in its context.
type identityKey struct{}

// TokenInfo returns the verified bearer token of the request ctx belongs to, nil when the
// gateway has no Auth or the request came in with the static token.
func TokenInfo(ctx context.Context) *auth.TokenInfo {
	ti, _ := ctx.Value(identityKey{}).(*auth.TokenInfo)
	return ti
}

// userOf is the user a request is from: its token's subject; "" when there is no Auth.
func userOf(r *http.Request) string {
	if ti := TokenInfo(r.Context()); ti != nil {
		return ti.UserID
	}
	return ""
}

// path is the HTTP path g serves at, which its resource URL ends with.
func (g *Gateway) path() string {
	if a := g.opts.Scope.AgentName; a != "" {
		return AgentsPath + a
	}
	return PoolPath
}

// requiredScopes are the scopes a token needs at g's path.
func (g *Gateway) requiredScopes() []string { return g.scopesAt(g.opts.Scope.AgentName) }

// scopesAt are the scopes a token needs at agent's path (the pool's when agent is "").
func (g *Gateway) scopesAt(agent string) []string {
	a := g.opts.Auth
	scopes := slices.Clone(a.Scopes)
	if a.AgentScopes && agent != "" {
		scopes = append(scopes, AgentScopePrefix+agent)
	}
	return scopes
}

// baseURL is the resource base of a request (see Auth.Resource).
func (a *Auth) baseURL(r *http.Request) string {
	if a.Resource != "" {
		return strings.TrimSuffix(a.Resource, "/")
	}
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if local == nil {
		return "http://" + r.Host
	}
	_, port, err := net.SplitHostPort(local.String())
	if err != nil || !isLoopback(local.String()) {
		return "http://" + local.String()
	}
	host, _, err := net.SplitHostPort(r.Host)
	if err != nil {
		host = strings.Trim(r.Host, "[]")
	}
	return "http://" + net.JoinHostPort(host, port) // hostAllowed made it a loopback name
}

// names reports whether hostport (a Host header) names Resource's host and port (the
// scheme's default when either leaves it out). False without a Resource.
func (a *Auth) names(hostport string) bool {
	u, err := url.Parse(a.Resource)
	if a.Resource == "" || err != nil {
		return false
	}
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = strings.Trim(hostport, "[]"), ""
	}
	def := map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	return strings.EqualFold(host, u.Hostname()) && cmp.Or(port, def) == cmp.Or(u.Port(), def)
}

// checkToken verifies r's bearer token for g's path and returns r carrying it (TokenInfo),
// or answers 401, 403 or 503 with the challenge the MCP authorization specification
// describes and reports false.
func (g *Gateway) checkToken(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	return g.checkTokenAt(w, r, g.path(), g.requiredScopes())
}

// checkTokenAt is checkToken for the path given, which needs scopes.
func (g *Gateway) checkTokenAt(w http.ResponseWriter, r *http.Request, path string, scopes []string) (*http.Request, bool) {
	a := g.opts.Auth
	base := a.baseURL(r)
	resource := base + path
	challenge := func(status int, errCode, desc string) {
		params := []string{fmt.Sprintf("resource_metadata=%q", base+ResourceMetadataPath+path)}
		if len(scopes) > 0 {
			params = append(params, fmt.Sprintf("scope=%q", strings.Join(scopes, " ")))
		}
		if errCode != "" {
			params = append(params, fmt.Sprintf("error=%q", errCode), fmt.Sprintf("error_description=%q", quotable(desc)))
		}
		w.Header().Set("WWW-Authenticate", "Bearer "+strings.Join(params, ", "))
		http.Error(w, http.StatusText(status)+": "+desc, status)
	}
	tok, ok := bearerToken(r)
	if !ok {
		// RFC 6750 §3.1: a request with no credentials gets no error code.
		challenge(http.StatusUnauthorized, "", "a bearer access token is required")
		return nil, false
	}
	ti, err := a.Verify(r.Context(), tok, resource)
	switch {
	case errors.Is(err, auth.ErrInvalidToken):
		challenge(http.StatusUnauthorized, "invalid_token", err.Error())
		return nil, false
	case err != nil:
		g.log.Warn("bearer token not checked", "err", err)
		w.Header().Set("Retry-After", "5")
		http.Error(w, "Service Unavailable: the access token cannot be checked now: "+err.Error(), http.StatusServiceUnavailable)
		return nil, false
	case ti == nil || ti.UserID == "":
		challenge(http.StatusUnauthorized, "invalid_token", "the token names no subject")
		return nil, false
	}
	if missing := missingScopes(ti.Scopes, scopes); len(missing) > 0 {
		challenge(http.StatusForbidden, "insufficient_scope", "the token lacks scope "+strings.Join(missing, " "))
		return nil, false
	}
	return r.WithContext(context.WithValue(r.Context(), identityKey{}, ti)), true
}

// missingScopes returns the scopes of want that have is not.
func missingScopes(have, want []string) []string {
	var missing []string
	for _, s := range want {
		if !slices.Contains(have, s) {
			missing = append(missing, s)
		}
	}
	return missing
}

// quotable makes s fit a quoted-string of a challenge parameter: no quotes, backslashes or
// control characters (RFC 6750 §3 allows only %x20-21 / %x23-5B / %x5D-7E in error_description).
func quotable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' {
			return ' '
		}
		return r
	}, s)
}

// bearerToken returns the token of r's Authorization header: the scheme is case-insensitive
// and may be followed by several spaces (RFC 9110 §11.1, RFC 6750 §2.1).
func bearerToken(r *http.Request) (string, bool) {
	scheme, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	tok = strings.TrimLeft(tok, " ")
	return tok, strings.EqualFold(scheme, "Bearer") && tok != ""
}

// serveResourceMetadata answers GET ResourceMetadataPath + path with the resource metadata
// of the Gateway g serving path (RFC 9728; public, so any origin may read it; the Host is
// checked in front of it, requireHost).
func (g *Gateway) serveResourceMetadata(w http.ResponseWriter, r *http.Request) {
	g.serveMetadataAt(w, r, g.path(), g.requiredScopes())
}

// serveMetadataAt is serveResourceMetadata for the path given, which needs scopes.
func (g *Gateway) serveMetadataAt(w http.ResponseWriter, r *http.Request, path string, scopes []string) {
	a := g.opts.Auth
	meta := &oauthex.ProtectedResourceMetadata{
		Resource:               a.baseURL(r) + path,
		AuthorizationServers:   a.AuthorizationServers,
		ScopesSupported:        scopes,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           g.opts.Name,
	}
	auth.ProtectedResourceMetadataHandler(meta).ServeHTTP(w, r)
}

package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/agentpool/agentpool/exposure"
	"github.com/agentpool/agentpool/mcpcap"
)

// Server is the server section: how `agentpool serve` serves over HTTP. Zero values mean
// the defaults below; a command-line flag given explicitly overrides its key.
type Server struct {
	// Addr is the HTTP listen address (--http); default DefaultServerAddr, loopback only.
	Addr string `yaml:"addr"`
	// SessionIdleTimeout ends an HTTP session that made no request for this long
	// (--session-idle-timeout); default 30m.
	SessionIdleTimeout time.Duration `yaml:"session_idle_timeout"`
	// Token, when set, is the bearer token every HTTP request must carry (--token); write it
	// as ${VAR} to keep it out of the file.
	Token string `yaml:"token" config:"expand"`
	// MaxSessions caps the live HTTP sessions of each path (--max-sessions); default 4096.
	MaxSessions int `yaml:"max_sessions"`
	// MaxSessionsPerUser caps the live HTTP sessions of one OAuth subject on each path
	// (with auth only); default 16.
	MaxSessionsPerUser int `yaml:"max_sessions_per_user"`
	// SessionGrace ends an HTTP session whose client has gone: its GET stream closed and no
	// request since, for this long; default 2m. A client that never opened a GET stream is
	// ended by SessionIdleTimeout only.
	SessionGrace time.Duration `yaml:"session_grace"`
	// AllowedOrigins are browser origins ("https://app.example") accepted besides the
	// loopback ones (--allow-origin).
	AllowedOrigins []string `yaml:"allowed_origins"`
	// MaxBody caps an HTTP request body, in bytes; default 4 MiB.
	MaxBody int64 `yaml:"max_body"`
	// ReadTimeout bounds how long a client may take to send an HTTP request, headers and
	// body (a client trickling a body is cut off), and how long an idle keep-alive connection
	// is kept; default 30s. It does not bound the response: an SSE stream or a long tool call
	// lasts as long as it needs.
	ReadTimeout time.Duration `yaml:"read_timeout"`
	// MaxInflight caps the requests of one session served at once, over HTTP and stdio (in
	// stateless mode, of one POST: its batch); default 64. One more is answered at once with
	// a JSON-RPC error naming this key.
	MaxInflight int `yaml:"max_inflight"`
	// MaxConnections caps the HTTP connections serve holds open at once; default 1024. Past
	// it, /healthz and /readyz still answer and anything else gets 503.
	MaxConnections int `yaml:"max_connections"`
	// Stateless serves every HTTP request on its own, with no Mcp-Session-Id, so that any
	// replica behind a load balancer may answer any request (gateway.Options.Stateless). It is
	// for tool-only fleets: server-to-client requests (sampling, elicitation, roots),
	// subscriptions, list_changed notifications and per-session log levels need a session and
	// stop working, and there are no session-scoped servers (a server of scope: session is a
	// config error with it; skills' own servers are not started).
	Stateless bool `yaml:"stateless"`
	// ReadyWhenDegraded makes /readyz answer 200 while an eager server is degraded; by
	// default it answers 503 then, naming the servers.
	ReadyWhenDegraded bool `yaml:"ready_when_degraded"`
	// Auth, when set, makes serve an OAuth protected resource (the MCP authorization
	// specification): HTTP clients need an access token its issuer signed for agentpool.
	// Token stays usable beside it.
	Auth *ServerAuth `yaml:"auth"`
	// Tools is how the pool's path (/mcp, stdio) lists tools: mode all, search or auto, the
	// always-on tools, the activation cap and auto's threshold (package exposure).
	Tools exposure.Config `yaml:"tools"`
}

// ServerAuth is server.auth: agentpool as an OAuth 2.1 protected resource. Clients such as
// claude.ai's and ChatGPT's connectors find the issuer in agentpool's resource metadata, get
// a token from it and send it with every request; agentpool checks its signature (the
// issuer's JWKS, found by discovery and fetched again when the issuer rotates its keys), its
// issuer, audience and expiry, and the scopes below.
type ServerAuth struct {
	// Issuer is the authorization server's issuer URL (https; http only on a loopback host),
	// as its discovery document states it.
	Issuer string `yaml:"issuer" config:"expand"`
	// Resource is the base URL clients reach agentpool at (https://agentpool.example, no
	// path): each path's resource is it + the path (/mcp, /mcp/agents/<name>), which a token's
	// audience must name. Default: http:// and the listen address, which fits only a
	// loopback listener; required on any other.
	Resource string `yaml:"resource" config:"expand"`
	// Audiences are audience values accepted besides the path's resource URL, for identity
	// providers that give every token of an API one fixed audience (Auth0, Okta, Entra ID).
	Audiences []string `yaml:"audiences" config:"expand"`
	// Scopes are required of every token; listed in the resource metadata.
	Scopes []string `yaml:"scopes"`
	// AgentScopes requires, at /mcp/agents/<name>, the scope agent:<name> as well.
	AgentScopes bool `yaml:"agent_scopes"`
	// JWKSURL is the issuer's key set, for an issuer without a discovery document.
	JWKSURL string `yaml:"jwks_url" config:"expand"`
	// Leeway is the clock difference allowed between the issuer and agentpool when checking
	// a token's exp, nbf and iat; default 30s.
	Leeway time.Duration `yaml:"leeway"`
}

// Validate returns every problem of a, keyed under key.
func (a *ServerAuth) Validate(key string) error {
	var errs []error
	if a.Issuer == "" {
		errs = append(errs, keyErrorf(key+".issuer", "required: the URL of the authorization server that issues the tokens"))
	} else if err := checkAuthURL(a.Issuer); err != nil {
		errs = append(errs, keyErrorf(key+".issuer", "%v", err))
	}
	if a.JWKSURL != "" {
		if err := checkAuthURL(a.JWKSURL); err != nil {
			errs = append(errs, keyErrorf(key+".jwks_url", "%v", err))
		}
	}
	if a.Resource != "" {
		u, err := url.Parse(a.Resource)
		switch {
		case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
			errs = append(errs, keyErrorf(key+".resource", "want the base URL clients use, such as https://agentpool.example, got %q", a.Resource))
		case (u.Path != "" && u.Path != "/") || strings.ContainsAny(a.Resource, "?#") || u.User != nil:
			errs = append(errs, keyErrorf(key+".resource", "the base URL only (scheme://host[:port]): each path's resource is it + the path, got %q", a.Resource))
		}
	}
	if a.Leeway < 0 {
		errs = append(errs, keyErrorf(key+".leeway", "must not be negative, got %s", a.Leeway))
	}
	for i, aud := range a.Audiences {
		if strings.TrimSpace(aud) == "" {
			errs = append(errs, keyErrorf(fmt.Sprintf("%s.audiences[%d]", key, i), "empty"))
		}
	}
	for i, sc := range a.Scopes {
		// RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ).
		if sc == "" || strings.ContainsFunc(sc, func(r rune) bool { return r <= 0x20 || r > 0x7e || r == '"' || r == '\\' }) {
			errs = append(errs, keyErrorf(fmt.Sprintf("%s.scopes[%d]", key, i), "%q is not a scope (printable ASCII, no spaces, quotes or backslashes)", sc))
		}
	}
	return errors.Join(errs...)
}

// checkAuthURL accepts an issuer or JWKS URL: https, or http on a loopback host (a local
// identity provider, a test), with no query or fragment.
func checkAuthURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return fmt.Errorf("want an https URL such as https://idp.example, got %q", s)
	}
	switch host := u.Hostname(); {
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && (host == "localhost" || net.ParseIP(host).IsLoopback()):
		return nil
	}
	return fmt.Errorf("must be https (http only on a loopback host), got %q", s)
}

// DefaultServerAddr is server.addr's default.
const DefaultServerAddr = "127.0.0.1:7433"

// Validate returns every problem of s, keyed under key.
func (s *Server) Validate(key string) error {
	errs := validateTools(key+".tools", &s.Tools)
	if s.Addr != "" {
		if _, port, err := net.SplitHostPort(s.Addr); err != nil {
			errs = append(errs, keyErrorf(key+".addr", "want host:port (127.0.0.1:7433), got %q", s.Addr))
		} else if _, err := strconv.ParseUint(port, 10, 16); err != nil {
			errs = append(errs, keyErrorf(key+".addr", "port %q is not a number from 0 to 65535", port))
		}
	}
	if s.SessionIdleTimeout < 0 {
		errs = append(errs, keyErrorf(key+".session_idle_timeout", "must not be negative, got %s", s.SessionIdleTimeout))
	}
	if s.MaxSessions < 0 {
		errs = append(errs, keyErrorf(key+".max_sessions", "must not be negative, got %d", s.MaxSessions))
	}
	if s.MaxSessionsPerUser < 0 {
		errs = append(errs, keyErrorf(key+".max_sessions_per_user", "must not be negative, got %d", s.MaxSessionsPerUser))
	}
	if s.SessionGrace < 0 {
		errs = append(errs, keyErrorf(key+".session_grace", "must not be negative, got %s", s.SessionGrace))
	}
	if s.ReadTimeout < 0 {
		errs = append(errs, keyErrorf(key+".read_timeout", "must not be negative, got %s", s.ReadTimeout))
	}
	if s.MaxBody < 0 {
		errs = append(errs, keyErrorf(key+".max_body", "must not be negative, got %d", s.MaxBody))
	}
	if s.MaxInflight < 0 {
		errs = append(errs, keyErrorf(key+".max_inflight", "must not be negative, got %d", s.MaxInflight))
	}
	if s.MaxConnections < 0 {
		errs = append(errs, keyErrorf(key+".max_connections", "must not be negative, got %d", s.MaxConnections))
	}
	if s.Auth != nil {
		errs = append(errs, s.Auth.Validate(key+".auth"))
	}
	for i, o := range s.AllowedOrigins {
		if err := checkOrigin(o); err != nil {
			errs = append(errs, keyErrorf(fmt.Sprintf("%s.allowed_origins[%d]", key, i), "%v", err))
		}
	}
	return errors.Join(errs...)
}

// checkOrigin accepts what a browser sends as Origin: scheme://host[:port], nothing more.
func checkOrigin(o string) error {
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("want an origin such as https://app.example, got %q", o)
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return fmt.Errorf("an origin is scheme://host[:port] only, got %q", o)
	}
	return nil
}

// checkStateless refuses server.stateless with a session-scoped server: in stateless mode
// there is no session to start it for, and silently serving without it would hide tools the
// file declares.
func (c *Config) checkStateless() error {
	if !c.Server.Stateless {
		return nil
	}
	var errs []error
	refuse := func(key string) {
		errs = append(errs, keyErrorf(key+".scope", "scope: session needs a session, and server.stateless serves without one; use scope: pool or drop server.stateless"))
	}
	for _, name := range c.MCPServers.Names() {
		if c.MCPServers[name].Scope == mcpcap.ScopeSession {
			refuse("mcp_servers." + name)
		}
	}
	for _, agent := range c.Agents.Names() {
		ss := c.Agents[agent].MCPServers
		for _, name := range ss.Names() {
			if ss[name].Scope == mcpcap.ScopeSession {
				refuse("agents." + agent + ".mcp_servers." + name)
			}
		}
	}
	return errors.Join(errs...)
}

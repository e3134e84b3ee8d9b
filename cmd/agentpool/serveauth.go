package main

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"

	"github.com/agentpool/agentpool/bearer"
	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/gateway"
)

// serveAuth returns the gateway's OAuth settings of server.auth (nil without it): tokens
// checked by package bearer against the issuer, for the path's resource URL under
// server.auth.resource. Without a resource the gateway takes the listener's address, which
// names agentpool only on a loopback listener; on any other, serve refuses to start rather
// than accept tokens for whatever Host a request names.
func serveAuth(a *config.ServerAuth, addr string, log *slog.Logger) (*gateway.Auth, error) {
	if a == nil {
		return nil, nil
	}
	if a.Resource == "" && !loopbackListen(addr) {
		return nil, fmt.Errorf("server.auth.resource is required when serving on %s, a non-loopback address: the base URL clients use, such as https://agentpool.example", addr)
	}
	v, err := bearer.New(bearer.Config{Issuer: a.Issuer, JWKSURL: a.JWKSURL, Audiences: a.Audiences, Leeway: a.Leeway, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("server.auth: %w", err)
	}
	return &gateway.Auth{
		Verify:               v.Verify,
		Resource:             a.Resource,
		AuthorizationServers: []string{a.Issuer},
		Scopes:               a.Scopes,
		AgentScopes:          a.AgentScopes,
	}, nil
}

// requireAuthOffLoopback refuses to serve on addr, a listener that is not loopback, with
// neither a token nor server.auth: every tool would be served to whoever reaches the port.
// With insecure (--insecure-no-auth) it serves, and says so on stderr.
func requireAuthOffLoopback(addr, token string, auth *config.ServerAuth, insecure bool, stderr io.Writer) error {
	if loopbackListen(addr) || token != "" || auth != nil {
		return nil
	}
	if !insecure {
		return fmt.Errorf("serve: %s is not loopback and there is neither a token nor OAuth, so anyone who reaches it could call every tool: "+
			"set --token (or $AGENTPOOL_TOKEN, server.token) or server.auth, listen on 127.0.0.1, or pass --insecure-no-auth to serve it anyway", addr)
	}
	fmt.Fprintf(stderr, "agentpool: warning: serving %s, not loopback, with no token and no OAuth (--insecure-no-auth): anyone who reaches it can call every tool\n", addr)
	return nil
}

// loopbackListen reports whether addr (host:port to listen on) is on a loopback host only.
func loopbackListen(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

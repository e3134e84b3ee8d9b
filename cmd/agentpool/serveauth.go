package main

import (
	"fmt"
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

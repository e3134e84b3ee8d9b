package oauthtest

import (
	"context"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/authredirect"
	"github.com/agentpool/agentpool/internal/memnet"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// NewInMemory is New served in memory (package memnet) instead of on a TCP port, so that it
// can run in a testing/synctest bubble: its clients connect with f.Dial, whatever address
// they dial.
func NewInMemory(t testing.TB, lifetime time.Duration) *Server {
	return newServer(t, lifetime, true)
}

// Dial connects to f, whatever address it is given when f is in memory (NewInMemory); its
// signature is http.Transport.DialContext's.
func (f *Server) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if l, ok := f.srv.Listener.(*memnet.Listener); ok {
		return l.Dial(ctx, network, addr)
	}
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}

// Client returns an HTTP client of f's connections.
func (f *Server) Client() *http.Client { return f.srv.Client() }

// Authorize is FollowRedirect over f's own connections (Client), as an in-memory Server
// needs: the user's part of an authorization code grant.
func (f *Server) Authorize(ctx context.Context, server, authURL string) (*auth.AuthorizationResult, error) {
	return authredirect.Over(f.Client().Transport)(ctx, server, authURL)
}

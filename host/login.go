package host

import (
	"context"
	"fmt"

	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/mcpcap"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// Authorize runs the user's part of an authorization code grant for server: it has the user
// open authURL and returns the code the authorization server redirected back with.
type Authorize func(ctx context.Context, server, authURL string) (*auth.AuthorizationResult, error)

// Login obtains a user's token for the configured url server name (auth: type
// authorization_code) and saves it in tokens, where every later host built with that store
// (Options.Tokens: serve, the CLI) finds and refreshes it. It always asks the user, even when
// a token is stored already: logging in again is how a user replaces a revoked or narrower
// token. It starts nothing but a connection to that server, closed before it returns.
func Login(ctx context.Context, cfg *config.Config, name string, tokens connpool.TokenStore, authorize Authorize) error {
	spec, ok := cfg.MCPServers[name]
	if !ok {
		return fmt.Errorf("login: no server %q in your config (mcp_servers)", name)
	}
	if spec.Auth == nil || spec.Auth.Type != connpool.GrantAuthorizationCode {
		return fmt.Errorf("login: server %q has no auth: {type: %s}: it needs no login", name, connpool.GrantAuthorizationCode)
	}
	c, err := mcpcap.ConfigOf(name, spec)
	if err != nil {
		return fmt.Errorf("login: %w", err)
	}
	pool := connpool.New(&connpool.Options{AuthorizeUser: authorize, Tokens: freshLogin{tokens}})
	defer pool.Close(context.WithoutCancel(ctx))
	client, err := pool.Get(ctx, c.Server, "")
	if err != nil {
		return fmt.Errorf("login: %s: %w", name, err)
	}
	pool.Release(client)
	return nil
}

// freshLogin is a token store that never finds a token, so that Login asks the user, and
// saves what the grant gives in the store underneath.
type freshLogin struct{ connpool.TokenStore }

func (freshLogin) Load(connpool.TokenKey) (*connpool.StoredToken, error) { return nil, nil }

package host

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/internal/oauthtest"
)

// A url server with auth: authorization_code, whose user has logged in (a token in the
// host's token store, as agentpool login leaves it), serves its tools with no login asked.
func TestHostUsesStoredTokens(t *testing.T) {
	f := oauthtest.New(t, time.Hour)
	store := &connpool.FileTokenStore{Dir: filepath.Join(t.TempDir(), "tokens")}
	auth := &decl.Auth{Type: connpool.GrantAuthorizationCode, ClientID: oauthtest.ClientID, ClientSecret: oauthtest.Secret}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	// The login: a pool that can ask the user.
	login := connpool.New(&connpool.Options{AuthorizeUser: oauthtest.FollowRedirect, Tokens: store})
	c, err := login.Get(ctx, connpool.ServerConfig{Name: "crm", Server: decl.Server{URL: f.URL + "/mcp", Auth: auth}}, "")
	if err != nil {
		t.Fatal(err)
	}
	login.Release(c)
	if err := login.Close(ctx); err != nil {
		t.Fatal(err)
	}

	path := filepath.Join(t.TempDir(), "agentpool.yaml")
	h := buildHost(t, path, `
mcp_servers:
  crm:
    url: `+f.URL+`/mcp
    auth: {type: authorization_code, client_id: `+oauthtest.ClientID+`, client_secret: `+oauthtest.Secret+`}
`, Options{Tokens: store})
	var crm ext.Capability
	for _, c := range h.Registry.Visible(ext.Scope{}) {
		if c.Name() == "crm" {
			crm = c
		}
	}
	if crm == nil {
		t.Fatal("no capability crm")
	}
	tools, err := crm.(ext.ToolProvider).Tools(ctx)
	if err != nil || len(tools) != 1 {
		t.Fatalf("Tools = %v, %v; want the server's echo", tools, err)
	}
	if n := f.Stats().Authorizes; n != 1 {
		t.Errorf("%d logins, want only the first", n)
	}
}

package main

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/oidctest"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// oauthServe starts a real OpenID provider (oidc-provider from npm) issuing tokens of ttl and
// `agentpool serve` protected by it (server.auth, scope mcp, agent scopes), with the fault
// server as a session-scoped upstream and an agent coder. It returns the provider, the /mcp
// endpoint and serve's stderr (debug level).
func oauthServe(t *testing.T, ttl time.Duration) (*oidctest.Provider, string, *syncBuffer) {
	t.Helper()
	p := oidctest.Start(t, &oidctest.Options{TokenTTL: ttl})
	dir := t.TempDir()
	cfg := filepath.Join(dir, "agentpool.yaml")
	writeFile(t, cfg, "mcp_servers:\n  fault: {command: "+testserver.Build(t)+", scope: session}\n"+
		"agents:\n  coder: {}\n"+
		"server:\n  auth:\n    issuer: "+p.Issuer+"\n    scopes: [mcp]\n    agent_scopes: true\n    leeway: 1s\n")
	_, url, log := startServeIn(t, "", []string{"HOME=" + t.TempDir()}, "--no-default-roots", "--log-level", "debug", "--config", cfg, "serve", "--http", "127.0.0.1:0")
	return p, url, log
}

// oauthClient connects a go-sdk client as user through the SDK's own authorization code
// handler: it finds agentpool's resource metadata from the 401, registers with the provider
// (dynamic registration), signs user in and sends the token.
func oauthClient(t *testing.T, p *oidctest.Provider, url, user string) *mcp.ClientSession {
	t.Helper()
	redirect := "http://127.0.0.1:1/callback" // never reached: FollowRedirect stops at it
	h, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName: "oauth-test-" + user, RedirectURIs: []string{redirect}, TokenEndpointAuthMethod: "none",
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
		}},
		RedirectURL:         redirect,
		RequestRefreshToken: true,
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			return p.FollowRedirect(ctx, args, user)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "oauth-test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, OAuthHandler: h}, nil)
	if err != nil {
		t.Fatalf("%s connecting through the authorization flow: %v", user, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func callText(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError || len(res.Content) == 0 {
		t.Fatalf("%s: %+v", name, res)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// initStatus posts an initialize with token (none when "") and returns the status and the
// WWW-Authenticate header.
func initStatus(t *testing.T, url, token string) (int, string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" { // end the session it opened
		del, _ := http.NewRequest(http.MethodDelete, url, nil)
		del.Header.Set("Mcp-Session-Id", sid)
		del.Header.Set("Authorization", "Bearer "+token)
		if r, err := http.DefaultClient.Do(del); err == nil {
			r.Body.Close()
		}
	}
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate")
}

// forgedToken is a well-formed RS256 JWT access token for resource that a key the provider
// never had signed, under a kid the provider's JWKS does not list.
func forgedToken(t *testing.T, issuer, resource string) string {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	now := time.Now().Unix()
	signing := enc(map[string]any{"alg": "RS256", "typ": "at+jwt", "kid": "forged"}) + "." +
		enc(map[string]any{"iss": issuer, "aud": resource, "sub": "alice", "scope": "mcp", "iat": now, "exp": now + 600, "client_id": "x"})
	sum := sha256.Sum256([]byte(signing))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	return signing + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// TestServeOAuthOpenIDProvider: `agentpool serve` as an OAuth protected resource of a real
// OpenID provider. A go-sdk client with the SDK's authorization code handler discovers
// agentpool's resource metadata, registers, signs in and calls a tool; two users' session-
// scoped servers stay apart and one cannot use the other's session; a token for another
// audience, one expired, one signed by an unknown key and one missing a required scope (the
// agent's) are refused with the right challenge; a key rotation at the provider is followed
// without a restart; and no token shows in serve's debug log.
func TestServeOAuthOpenIDProvider(t *testing.T) {
	t.Parallel()
	p, url, log := oauthServe(t, 3*time.Second)
	base := strings.TrimSuffix(url, "/mcp")

	// The metadata a client discovers.
	resp, err := http.Get(base + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	var meta oauthex.ProtectedResourceMetadata
	err = json.NewDecoder(resp.Body).Decode(&meta)
	resp.Body.Close()
	if err != nil || meta.Resource != url || len(meta.AuthorizationServers) != 1 || meta.AuthorizationServers[0] != p.Issuer {
		t.Fatalf("resource metadata %+v (%v), want resource %s and issuer %s", meta, err, url, p.Issuer)
	}

	// Two users through the real flow, each with their own session-scoped server.
	alice := oauthClient(t, p, url, "alice")
	bob := oauthClient(t, p, url, "bob")
	if got := callText(t, alice, "fault__state_set", map[string]any{"value": "alice's secret"}); got != "ok" {
		t.Fatalf("alice's state_set = %q", got)
	}
	if got := callText(t, bob, "fault__state_get", map[string]any{}); got != "" {
		t.Errorf("bob reads %q from his session's server, want nothing: alice's state", got)
	}
	bobToken := p.UserToken(t, "bob", url, "mcp")
	status, _ := postInSession(t, url, alice.ID(), bobToken)
	if status != http.StatusForbidden {
		t.Errorf("bob's token in alice's session: %d, want 403", status)
	}

	// Refused tokens, each with its challenge.
	expired := p.UserToken(t, "alice", url, "mcp")
	cases := []struct {
		name, token string
		status      int
		challenge   string
	}{
		{"no token", "", 401, `resource_metadata="` + base + `/.well-known/oauth-protected-resource/mcp"`},
		{"another audience", p.UserToken(t, "alice", base+"/elsewhere", "mcp"), 401, `error="invalid_token"`},
		{"an unknown key", forgedToken(t, p.Issuer, url), 401, `error="invalid_token"`},
		{"no mcp scope", p.UserToken(t, "alice", url, "openid"), 403, `error="insufficient_scope"`},
	}
	for _, c := range cases {
		if status, ch := initStatus(t, url, c.token); status != c.status || !strings.Contains(ch, c.challenge) {
			t.Errorf("%s: %d %q, want %d with %s", c.name, status, ch, c.status, c.challenge)
		}
	}
	agent := base + "/mcp/agents/coder"
	if status, ch := initStatus(t, agent, p.UserToken(t, "alice", agent, "mcp")); status != 403 || !strings.Contains(ch, `scope="mcp agent:coder"`) {
		t.Errorf("the agent's path without agent:coder: %d %q, want 403 naming the scope", status, ch)
	}
	if status, _ := initStatus(t, agent, p.UserToken(t, "alice", agent, "mcp", "agent:coder")); status != 200 {
		t.Errorf("the agent's path with agent:coder: %d, want 200", status)
	}

	// Rotation: the provider signs with a new key and drops the old one; a token of the new
	// key is taken without a restart, and one of the dropped key (not seen before) is not.
	oldKey := p.UserToken(t, "alice", url, "mcp")
	p.Rotate(t, false) // a new key signs
	p.Rotate(t, true)  // the old one leaves the JWKS
	newKey := p.UserToken(t, "alice", url, "mcp")
	// agentpool fetches the JWKS for an unknown key at most every few seconds (so that
	// tokens with made-up key IDs cannot make it hammer the issuer): a client retries.
	status, ch := initStatus(t, url, newKey)
	for end := time.Now().Add(15 * time.Second); status != 200 && time.Now().Before(end); {
		time.Sleep(500 * time.Millisecond)           // serve's JWKS refetch limit runs on its real clock
		newKey = p.UserToken(t, "alice", url, "mcp") // the tokens live 3 s
		status, ch = initStatus(t, url, newKey)
	}
	if status != 200 {
		t.Errorf("a token of the provider's new key: %d %q, want 200", status, ch)
	}
	if status, _ := initStatus(t, url, oldKey); status != 401 {
		t.Errorf("a token of the dropped key: %d, want 401", status)
	}

	time.Sleep(time.Until(tokenExpiry(t, expired).Add(2 * time.Second))) // exp is checked by serve on its real clock
	if status, ch := initStatus(t, url, expired); status != 401 || !strings.Contains(ch, `error="invalid_token"`) {
		t.Errorf("an expired token: %d %q, want 401 invalid_token", status, ch)
	}

	// Alice's session outlived several of her tokens: the client refreshed, agentpool took it.
	if got := callText(t, alice, "fault__state_get", map[string]any{}); got != "alice's secret" {
		t.Errorf("alice's state after her tokens expired = %q", got)
	}
	if !strings.Contains(log.String(), "session opened") {
		t.Fatalf("serve's debug log has no session opened line: the log was not captured:\n%s", log.String())
	}
	for _, tok := range []string{bobToken, expired, oldKey, newKey} {
		if strings.Contains(log.String(), tok) || strings.Contains(log.String(), tok[strings.LastIndex(tok, ".")+1:]) {
			t.Errorf("serve's debug log holds a token")
		}
	}
}

// postInSession sends tools/list in session sid with token and returns the status.
func postInSession(t *testing.T, url, sid, token string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate")
}

// tokenExpiry reads a JWT's exp (unverified: the test's own token).
func tokenExpiry(t *testing.T, tok string) time.Time {
	t.Helper()
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWT: %d parts", len(parts))
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	var claims struct {
		Exp int64 `json:"exp"`
	}
	if err == nil {
		err = json.Unmarshal(b, &claims)
	}
	if err != nil || claims.Exp == 0 {
		t.Fatalf("token payload: %v", err)
	}
	return time.Unix(claims.Exp, 0)
}

// TestServeOAuthLongSession: with 2-second tokens, a client keeps calling tools for several
// expiries without an error reaching it (the go-sdk client refreshes; agentpool takes each
// new token in the same session).
func TestServeOAuthLongSession(t *testing.T) {
	t.Parallel()
	p, url, _ := oauthServe(t, 2*time.Second)
	cs := oauthClient(t, p, url, "carol")
	calls := 0
	for end := time.Now().Add(7 * time.Second); time.Now().Before(end); calls++ {
		if got := callText(t, cs, "fault__echo", map[string]any{"text": "x"}); got != "x" {
			t.Fatalf("call %d: %q", calls, got)
		}
		time.Sleep(200 * time.Millisecond) // the expiries are real time in serve and the provider
	}
	if calls < 10 {
		t.Errorf("%d calls in 7 s", calls)
	}
}

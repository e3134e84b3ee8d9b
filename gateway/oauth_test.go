package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentpool/agentpool/gateway"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/status"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// fakeTokens is a Verify for unit tests: a token is "user:scope,scope"; "down" cannot be
// checked now; anything else is invalid. It records the resource each token was checked for.
type fakeTokens struct {
	mu        sync.Mutex
	resources []string
}

func (f *fakeTokens) verify(_ context.Context, token, resource string) (*auth.TokenInfo, error) {
	f.mu.Lock()
	f.resources = append(f.resources, resource)
	f.mu.Unlock()
	if token == "down" {
		return nil, errors.New("the issuer cannot be reached")
	}
	user, scopes, ok := strings.Cut(token, ":")
	if !ok || user == "" {
		return nil, fmt.Errorf("%w: not a token of the fake", auth.ErrInvalidToken)
	}
	return &auth.TokenInfo{UserID: user, Scopes: strings.Split(scopes, ","), Expiration: time.Now().Add(time.Hour)}, nil
}

func (f *fakeTokens) lastResource() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.resources) == 0 {
		return ""
	}
	return f.resources[len(f.resources)-1]
}

// oauthFixture serves the fault server (session-scoped) at /mcp and to agents a and b,
// behind Auth requiring scope mcp and the agents' scopes, and the static token "ops".
func oauthFixture(t *testing.T) (string, *fakeTokens) {
	t.Helper()
	f := &fakeTokens{}
	a := &gateway.Auth{Verify: f.verify, AuthorizationServers: []string{"https://idp.example"}, Scopes: []string{"mcp"}, AgentScopes: true}
	yaml := "mcp_servers:\n  fault: {command: " + testserver.Build(t) + ", scope: session}\nagents:\n  a: {}\n  b: {}\n"
	url := agentsFixture(t, yaml, func(o *gateway.Options) { o.Auth = a; o.Token = "ops" })
	return url, f
}

func authHeader(tok string) map[string]string {
	return map[string]string{"Authorization": "Bearer " + tok}
}

// challengeParams parses a Bearer challenge's parameters (the test's own values have no
// commas or escaped quotes).
func challengeParams(t *testing.T, h http.Header) map[string]string {
	t.Helper()
	c, ok := strings.CutPrefix(h.Get("WWW-Authenticate"), "Bearer ")
	if !ok {
		t.Fatalf("WWW-Authenticate %q, want a Bearer challenge", h.Get("WWW-Authenticate"))
	}
	params := map[string]string{}
	for _, p := range strings.Split(c, ", ") {
		k, v, _ := strings.Cut(p, "=")
		params[k] = strings.Trim(v, `"`)
	}
	return params
}

// TestOAuthChallenges: with Auth, a request without a token, with an invalid one, with one
// lacking a scope of the path, and one that cannot be checked now each get the answer the MCP
// authorization specification describes, whose resource_metadata is the path's; a token with
// the scopes (and the static token) passes, and the token is checked for the path's resource.
func TestOAuthChallenges(t *testing.T) {
	base, f := oauthFixture(t)
	cases := []struct {
		path, token string
		status      int
		errCode     string
		scope       string
	}{
		{"/mcp", "", 401, "", "mcp"},
		{"/mcp", "garbage", 401, "invalid_token", "mcp"},
		{"/mcp", "alice:other", 403, "insufficient_scope", "mcp"},
		{"/mcp/agents/a", "alice:mcp", 403, "insufficient_scope", "mcp agent:a"},
		{"/mcp/agents/a", "alice:mcp,agent:b", 403, "insufficient_scope", "mcp agent:a"},
		{"/mcp/agents/b", "", 401, "", "mcp agent:b"},
	}
	for _, c := range cases {
		var hdr map[string]string
		if c.token != "" {
			hdr = authHeader(c.token)
		}
		status, h, _ := post(t, base+c.path, "", initBody, hdr)
		if status != c.status {
			t.Errorf("%s with %q: %d, want %d", c.path, c.token, status, c.status)
			continue
		}
		p := challengeParams(t, h)
		if want := base + gateway.ResourceMetadataPath + c.path; p["resource_metadata"] != want {
			t.Errorf("%s with %q: resource_metadata %q, want %q", c.path, c.token, p["resource_metadata"], want)
		}
		if p["error"] != c.errCode || p["scope"] != c.scope {
			t.Errorf("%s with %q: error %q scope %q, want %q and %q", c.path, c.token, p["error"], p["scope"], c.errCode, c.scope)
		}
	}
	if status, h, _ := post(t, base+"/mcp", "", initBody, authHeader("down")); status != http.StatusServiceUnavailable || h.Get("WWW-Authenticate") != "" {
		t.Errorf("a token that cannot be checked now: %d %q, want 503 and no challenge", status, h.Get("WWW-Authenticate"))
	}
	for path, tok := range map[string]string{"/mcp": "alice:mcp", "/mcp/agents/a": "alice:mcp,agent:a"} {
		status, h, msgs := post(t, base+path, "", initBody, authHeader(tok))
		if status != http.StatusOK || h.Get("Mcp-Session-Id") == "" || rpcError(msgs) != nil {
			t.Errorf("%s with %q: %d %v, want a session", path, tok, status, msgs)
		}
		if got, want := f.lastResource(), base+path; got != want {
			t.Errorf("%s: the token was checked for resource %q, want %q", path, got, want)
		}
	}
	if status, _, _ := post(t, base+"/mcp/agents/a", "", initBody, authHeader("ops")); status != http.StatusOK {
		t.Errorf("the static token beside Auth: %d, want 200", status)
	}
}

// TestOAuthResourceMetadata: each path's RFC 9728 metadata names its own resource URL, the
// authorization servers and the scopes it needs; it is public (no token asked); a path
// outside the MCP routes is 404, while an agent path is served whether or not the agent
// exists (which the metadata must not tell).
func TestOAuthResourceMetadata(t *testing.T) {
	base, _ := oauthFixture(t)
	for path, scopes := range map[string]string{"/mcp": "mcp", "/mcp/agents/b": "mcp agent:b", "/mcp/agents/nobody": "mcp agent:nobody"} {
		resp, err := http.Get(base + gateway.ResourceMetadataPath + path)
		if err != nil {
			t.Fatal(err)
		}
		var meta struct {
			Resource             string   `json:"resource"`
			AuthorizationServers []string `json:"authorization_servers"`
			ScopesSupported      []string `json:"scopes_supported"`
		}
		err = json.NewDecoder(resp.Body).Decode(&meta)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %v", path, resp.StatusCode, err)
		}
		if meta.Resource != base+path || strings.Join(meta.AuthorizationServers, " ") != "https://idp.example" || strings.Join(meta.ScopesSupported, " ") != scopes {
			t.Errorf("%s: metadata %+v", path, meta)
		}
	}
	for _, path := range []string{"/elsewhere", ""} {
		resp, err := http.Get(base + gateway.ResourceMetadataPath + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("metadata of %q: %d, want 404", path, resp.StatusCode)
		}
	}
}

// TestOAuthSessionIsTheUsers: a session answers only the user who opened it. Another user
// presenting its ID (a leaked or guessed one) is refused for every method, and its state
// (the session-scoped server's) stays the owner's; the owner goes on.
func TestOAuthSessionIsTheUsers(t *testing.T) {
	base, _ := oauthFixture(t)
	url := base + "/mcp"
	_, h, _ := post(t, url, "", initBody, authHeader("alice:mcp"))
	sid := h.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatal("no session for alice")
	}
	post(t, url, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, authHeader("alice:mcp"))
	set := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fault__state_set","arguments":{"value":"alice's"}}}`
	if status, _, msgs := post(t, url, sid, set, authHeader("alice:mcp")); status != http.StatusOK || rpcError(msgs) != nil {
		t.Fatalf("alice's state_set: %d %v", status, msgs)
	}
	get := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fault__state_get","arguments":{}}}`
	if status, _, msgs := post(t, url, sid, get, authHeader("bob:mcp")); status != http.StatusForbidden || len(msgs) != 0 {
		t.Errorf("bob calling in alice's session: %d %v, want 403", status, msgs)
	}
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		req, _ := http.NewRequest(method, url, nil)
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Authorization", "Bearer bob:mcp")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("bob's %s of alice's session: %d, want 403", method, resp.StatusCode)
		}
	}
	status, _, msgs := post(t, url, sid, get, authHeader("alice:mcp"))
	if status != http.StatusOK || len(msgs) == 0 || !strings.Contains(fmt.Sprint(msgs[0]["result"]), "alice's") {
		t.Errorf("alice after bob's tries: %d %v, want her state", status, msgs)
	}
}

// TestOAuthBehindProxyKeepingHost: with Auth.Resource on a loopback listener behind a TLS
// reverse proxy that keeps the client's Host header (Caddy's and Traefik's default), the
// requests name the resource's host: they are served, and the metadata with them. A Host
// that is neither loopback nor the resource's is still 403 (DNS rebinding).
func TestOAuthBehindProxyKeepingHost(t *testing.T) {
	f := &fakeTokens{}
	a := &gateway.Auth{Verify: f.verify, Resource: "https://agentpool.example", AuthorizationServers: []string{"https://idp.example"}}
	base := agentsFixture(t, "agents:\n  a: {}\n", func(o *gateway.Options) { o.Auth = a })
	do := func(method, path, host, body string) (int, []byte) {
		t.Helper()
		req, err := http.NewRequest(method, base+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer alice:mcp")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	for _, host := range []string{"agentpool.example", "AgentPool.Example:443"} {
		for _, path := range []string{"/mcp", "/mcp/agents/a"} {
			if status, b := do(http.MethodPost, path, host, initBody); status != http.StatusOK {
				t.Errorf("initialize at %s with Host %s: %d %s, want 200", path, host, status, b)
			}
			if got, want := f.lastResource(), "https://agentpool.example"+path; got != want {
				t.Errorf("%s: the token was checked for %q, want %q", path, got, want)
			}
			status, b := do(http.MethodGet, gateway.ResourceMetadataPath+path, host, "")
			if status != http.StatusOK || !strings.Contains(string(b), `"resource":"https://agentpool.example`+path+`"`) {
				t.Errorf("metadata of %s with Host %s: %d %s", path, host, status, b)
			}
		}
	}
	for _, host := range []string{"evil.example", "agentpool.example:8443", "agentpool.example.evil.example"} {
		if status, b := do(http.MethodPost, "/mcp", host, initBody); status != http.StatusForbidden {
			t.Errorf("initialize with Host %s: %d %s, want 403", host, status, b)
		}
	}

	// Stateless mode too: its go-sdk handler has the same Host check of its own.
	base = agentsFixture(t, "agents:\n  a: {}\n", func(o *gateway.Options) { o.Auth = a; o.Stateless = true })
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	if status, b := do(http.MethodPost, "/mcp", "agentpool.example", list); status != http.StatusOK {
		t.Errorf("stateless tools/list with Host agentpool.example: %d %s, want 200", status, b)
	}
	if status, b := do(http.MethodPost, "/mcp", "evil.example", list); status != http.StatusForbidden {
		t.Errorf("stateless tools/list with Host evil.example: %d %s, want 403", status, b)
	}
}

// TestOAuthStatusIsOperators: with Auth, the status page and /metrics (every user's
// sessions, the servers' errors and process ids) are the operators', who hold the static
// token: an OAuth user's token, whatever its scopes, gets 403; without a static token they
// are 403 for everyone, saying why.
func TestOAuthStatusIsOperators(t *testing.T) {
	for _, token := range []string{"ops", ""} {
		f := newFixture(t, func(o *gateway.Options) {
			o.Auth = &gateway.Auth{Verify: (&fakeTokens{}).verify, Scopes: []string{"mcp"}}
			o.Token = token
			o.Metrics = gateway.NewMetrics(nil)
		})
		url := statusServer(t, f, status.Options{})
		metrics := httptest.NewServer(f.g.MetricsHandler())
		t.Cleanup(metrics.Close)
		for _, u := range []string{url + "/", metrics.URL + gateway.MetricsPath} {
			get := func(tok string) (int, string) {
				req, _ := http.NewRequest(http.MethodGet, u, nil)
				req.Header.Set("Authorization", "Bearer "+tok)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				return resp.StatusCode, string(b)
			}
			if status, _ := get("alice:mcp"); status != http.StatusForbidden {
				t.Errorf("static token %q: %s with a user's token: %d, want 403", token, u, status)
			}
			if token != "" && strings.HasPrefix(u, url) {
				if status, _, _ := post(t, f.url, "", initBody, authHeader("alice:mcp")); status != http.StatusOK {
					t.Fatalf("alice's initialize: %d", status)
				}
			}
			status, body := get("ops")
			if token != "" && strings.HasPrefix(u, url) && !strings.Contains(body, "<td>alice</td>") {
				t.Errorf("the status page does not show alice's session as hers")
			}
			switch {
			case token != "" && status != http.StatusOK:
				t.Errorf("%s with the static token: %d, want 200", u, status)
			case token == "" && (status != http.StatusForbidden || !strings.Contains(body, "server.token")):
				t.Errorf("%s with no static token configured: %d %q, want 403 naming server.token", u, status, body)
			}
		}
	}
}

// TestOAuthNoAgentOracle: with Auth, the path of an agent that does not exist answers every
// caller the check refuses exactly as an existing agent's path does (the same status and
// challenge, for a caller with no token, a token of another path, or one lacking the agent's
// scope), and its resource metadata is served alike: nothing tells which agents exist. A
// token granted for the path itself gets 404 naming no agent.
func TestOAuthNoAgentOracle(t *testing.T) {
	url, f := oauthFixture(t)
	base := strings.TrimSuffix(url, "/mcp")
	answer := func(path, tok string) string {
		h := map[string]string{}
		if tok != "" {
			h = authHeader(tok)
		}
		status, hdr, _ := post(t, base+path, "", initBody, h)
		c := strings.ReplaceAll(hdr.Get("WWW-Authenticate"), path, "<path>")
		c = strings.ReplaceAll(c, "agent:"+strings.TrimPrefix(path, "/mcp/agents/"), "agent:<name>")
		return fmt.Sprintf("%d %s", status, c)
	}
	for _, tok := range []string{"", "junk", "alice:mcp", "down"} {
		known, unknown := answer("/mcp/agents/a", tok), answer("/mcp/agents/nope", tok)
		if known != unknown {
			t.Errorf("token %q: agent a answered %q, agent nope %q: want them alike", tok, known, unknown)
		}
	}
	status, _, _ := post(t, base+"/mcp/agents/nope", "", initBody, authHeader("alice:mcp,agent:nope"))
	if status != http.StatusNotFound {
		t.Errorf("a token for the unknown agent's path: %d, want 404", status)
	}
	if r := f.lastResource(); r != base+"/mcp/agents/nope" {
		t.Errorf("the token was checked for %q, want the unknown agent's path", r)
	}
	resp, err := http.Get(base + "/mcp/agents/nope")
	if err == nil {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(body), "a, b") || strings.Contains(string(body), `"a"`) {
			t.Errorf("an unknown agent's path named the agents: %s", body)
		}
	}

	meta := func(name string) (int, map[string]any) {
		resp, err := http.Get(base + gateway.ResourceMetadataPath + "/mcp/agents/" + name)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m
	}
	ks, km := meta("a")
	us, um := meta("nope")
	if ks != us || ks != http.StatusOK {
		t.Fatalf("resource metadata: agent a %d, agent nope %d: want both 200", ks, us)
	}
	if um["resource"] != base+"/mcp/agents/nope" || fmt.Sprint(um["scopes_supported"]) != "[mcp agent:nope]" ||
		fmt.Sprint(um["authorization_servers"]) != fmt.Sprint(km["authorization_servers"]) {
		t.Errorf("metadata of agent nope %v, want agent a's (%v) for its own path", um, km)
	}
}

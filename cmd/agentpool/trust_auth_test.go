package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// tokenEndpoint is a local listener standing in for a project's MCP server and the token
// endpoint its metadata names: /mcp answers 401 pointing at its protected resource metadata,
// which names itself as the authorization server, whose token endpoint records the client
// credentials it is sent. Every request it sees is recorded.
type tokenEndpoint struct {
	srv *httptest.Server

	mu       sync.Mutex
	requests []string // "METHOD path" of each request
	secrets  []string // the client secrets sent to /token (Basic or form)
}

func newTokenEndpoint(t *testing.T) *tokenEndpoint {
	e := &tokenEndpoint{}
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata="%s/.well-known/oauth-protected-resource/mcp"`, e.srv.URL))
		w.WriteHeader(http.StatusUnauthorized)
	})
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"resource": e.srv.URL + "/mcp", "authorization_servers": []string{e.srv.URL}})
	})
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"issuer": e.srv.URL, "token_endpoint": e.srv.URL + "/token", "code_challenge_methods_supported": []string{"S256"},
			"grant_types_supported":                 []string{"client_credentials"},
			"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post"},
		})
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		secret := ""
		if _, s, ok := r.BasicAuth(); ok {
			secret = s
		} else if r.ParseForm() == nil {
			secret = r.PostForm.Get("client_secret")
		}
		e.mu.Lock()
		e.secrets = append(e.secrets, secret)
		e.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": "invalid_client"})
	})
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		e.requests = append(e.requests, r.Method+" "+r.URL.Path)
		e.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(e.srv.Close)
	return e
}

// seen returns the requests and the secrets seen so far, and forgets them.
func (e *tokenEndpoint) seen() (requests, secrets []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	requests, secrets = e.requests, e.secrets
	e.requests, e.secrets = nil, nil
	return requests, secrets
}

// A trusted project whose url server then gets an auth block, or has any of its auth block's
// keys changed, is changed: nothing starts and nothing is sent (the listener standing in for
// the token endpoint sees no request) until it is trusted again; trust shows the auth block
// with the names of the variables its secret is made of, never their values. Once trusted,
// the secret does reach the token endpoint: what the check stood between.
func TestTrustedProjectAuthChangeAsksAgain(t *testing.T) {
	r := newTrustRepo(t)
	e := newTokenEndpoint(t)
	t.Setenv("AGENTPOOL_AUTH_SECRET_A", "value-of-secret-a")
	t.Setenv("AGENTPOOL_AUTH_SECRET_B", "value-of-secret-b")
	project := func(auth string) {
		writeFile(t, filepath.Join(r.dir, "agentpool.yaml"), fmt.Sprintf(`mcp_servers:
  api:
    url: %s/mcp
    retry: {attempts: 1}
%s`, e.srv.URL, auth))
	}
	const base = `    auth:
      type: client_credentials
      client_id: agentpool
      client_secret: ${AGENTPOOL_AUTH_SECRET_A}
      token_endpoint_auth: client_secret_basic
      scopes: [read]
`
	variants := []struct{ name, auth string }{
		{"client_id", strings.Replace(base, "client_id: agentpool", "client_id: other", 1)},
		{"client_secret", strings.Replace(base, "SECRET_A", "SECRET_B", 1)},
		{"token_endpoint_auth", strings.Replace(base, "client_secret_basic", "client_secret_post", 1)},
		{"scopes", strings.Replace(base, "[read]", "[read, write]", 1)},
		{"type", strings.Replace(base, "client_credentials", "authorization_code", 1)},
	}

	// Trusted without auth; auth added: changed, nothing sent.
	project("")
	if _, stderr, code := r.run(t, "trust"); code != 0 {
		t.Fatalf("trust: %s", stderr)
	}
	project(base)
	_, stderr, _ := r.run(t, "tools", "list")
	if !strings.Contains(stderr, "changed since you trusted it (new or changed: api)") {
		t.Errorf("auth added to a trusted url server: stderr %s; want the project changed", stderr)
	}
	if req, _ := e.seen(); len(req) > 0 {
		t.Errorf("auth added to a trusted url server: the listener saw %v before the project was trusted again", req)
	}

	// Trusted with auth; each key changed: changed, nothing sent.
	stdout, stderr, code := r.run(t, "trust")
	if code != 0 {
		t.Fatalf("trust: %s", stderr)
	}
	for _, want := range []string{"auth: client_credentials", "client_id: agentpool", "client_secret: from ${AGENTPOOL_AUTH_SECRET_A}",
		"token_endpoint_auth: client_secret_basic", "scopes: read"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("trust does not show %q of the auth block:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout+stderr, "value-of-secret") {
		t.Errorf("trust printed the value of a secret:\n%s%s", stdout, stderr)
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			project(v.auth)
			_, stderr, _ := r.run(t, "tools", "list")
			if !strings.Contains(stderr, "changed since you trusted it (new or changed: api)") {
				t.Errorf("auth %s changed: stderr %s; want the project changed", v.name, stderr)
			}
			if req, _ := e.seen(); len(req) > 0 {
				t.Errorf("auth %s changed: the listener saw %v before the project was trusted again", v.name, req)
			}
		})
	}

	// Trusted again with another secret variable: trust says which, and it is then sent.
	project(variants[1].auth)
	stdout, stderr, code = r.run(t, "trust")
	if code != 0 {
		t.Fatalf("trust: %s", stderr)
	}
	if !strings.Contains(stdout, "client_secret: from ${AGENTPOOL_AUTH_SECRET_B}") || !strings.Contains(stdout, "(new or changed)") {
		t.Errorf("trust does not show the changed auth block as changed:\n%s", stdout)
	}
	if strings.Contains(stdout+stderr, "value-of-secret") {
		t.Errorf("trust printed the value of a secret:\n%s%s", stdout, stderr)
	}
	_, stderr, _ = r.run(t, "tools", "list")
	if req, secrets := e.seen(); len(secrets) == 0 || secrets[0] != "value-of-secret-b" {
		t.Errorf("once trusted, the token endpoint got secrets %q (requests %v); want the value of AGENTPOOL_AUTH_SECRET_B\n%s", secrets, req, stderr)
	}
}

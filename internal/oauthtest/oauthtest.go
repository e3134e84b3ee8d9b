// Package oauthtest is a fake OAuth-protected MCP server for tests: one origin that is an MCP
// server (one tool, echo) protected by bearer tokens (RFC 9728 metadata, 401 with
// resource_metadata, 403 insufficient_scope for a step-up) and its authorization server (RFC
// 8414 metadata; client credentials, authorization code and refresh token grants; a
// pre-registered client authenticating with client_secret_basic, client_secret_post or an
// ES256 private_key_jwt; an authorization endpoint that redirects at once with a code).
package oauthtest

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/authredirect"
	"github.com/agentpool/agentpool/internal/memnet"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Server is one origin that is both an MCP server protected by bearer tokens (RFC 9728
// metadata, 401 with resource_metadata) and its authorization server (RFC 8414 metadata, a
// client credentials token endpoint that checks client_secret_basic, client_secret_post
// or an ES256 private_key_jwt assertion).
type Server struct {
	// URL is the server's origin: the MCP endpoint is URL+"/mcp", the issuer URL.
	URL string
	// Lifetime is the lifetime of the access tokens it issues.
	Lifetime time.Duration
	// StepUp makes tools/call need scope "write": 403 insufficient_scope without it.
	StepUp bool
	// Scopes are the scopes_supported of the protected resource metadata; nil is "read".
	Scopes []string
	// Grants, if not nil, are the only scopes the user grants of those an authorization asks
	// for, and each token answer then says which it grants (its scope field).
	Grants []string
	// PublicKey verifies private_key_jwt assertions (ES256); nil refuses them.
	PublicKey *ecdsa.PublicKey

	srv     *httptest.Server
	mu      sync.Mutex
	tokens  map[string]token
	refresh map[string]string // valid refresh tokens and the scopes they grant
	codes   map[string]string // authorization codes not used yet and the scopes asked for
	stats   Stats
}

// Stats is what a Server has seen.
type Stats struct {
	Issued     []string // every access and refresh token, in order
	Methods    []string // the client authentication of each token request
	Resources  []string // the resource parameter of each token request
	Scopes     []string // the scope parameter of each token request
	Challenges int      // 401s answered
	Authorizes int      // authorization requests (a user's login)
	Refreshes  int      // refresh_token grants answered with a token
}

// Stats returns a copy of what f has seen.
func (f *Server) Stats() Stats {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.stats
	s.Issued = slices.Clone(s.Issued)
	s.Methods = slices.Clone(s.Methods)
	s.Resources = slices.Clone(s.Resources)
	s.Scopes = slices.Clone(s.Scopes)
	return s
}

type token struct {
	expiry time.Time
	scopes []string
}

// The pre-registered client a Server knows.
const (
	ClientID = "agentpool-test"
	Secret   = "s3cr3t-client-value"
)

// New starts a Server issuing tokens of the given lifetime, closed at t's cleanup.
func New(t testing.TB, lifetime time.Duration) *Server {
	return newServer(t, lifetime, false)
}

// newServer starts a Server in memory, or on a TCP port of the loopback interface.
func newServer(t testing.TB, lifetime time.Duration, inMemory bool) *Server {
	f := &Server{Lifetime: lifetime, tokens: map[string]token{}, refresh: map[string]string{}, codes: map[string]string{}}
	server := mcp.NewServer(&mcp.Implementation{Name: "oauth-fake"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Text string `json:"text"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		scopes := f.Scopes
		if scopes == nil {
			scopes = []string{"read"}
		}
		writeJSON(w, map[string]any{"resource": f.URL + "/mcp", "authorization_servers": []string{f.URL}, "scopes_supported": scopes})
	})
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{
			"issuer": f.URL, "token_endpoint": f.URL + "/token", "authorization_endpoint": f.URL + "/authorize",
			"response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"},
			"grant_types_supported":                 []string{"client_credentials", "authorization_code", "refresh_token"},
			"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post", "private_key_jwt"},
		})
	})
	mux.HandleFunc("POST /token", f.token)
	mux.HandleFunc("GET /authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		code := "code-" + rand.Text()
		f.mu.Lock()
		f.stats.Authorizes++
		granted := q.Get("scope")
		if f.Grants != nil {
			granted = strings.Join(slices.DeleteFunc(strings.Fields(granted), func(s string) bool { return !slices.Contains(f.Grants, s) }), " ")
		}
		f.codes[code] = granted
		f.mu.Unlock()
		http.Redirect(w, r, q.Get("redirect_uri")+"?code="+code+"&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
	})
	mux.Handle("/mcp", f.protect(mcpHandler))
	if inMemory {
		f.srv, _ = memnet.NewServer(t, mux)
	} else {
		f.srv = httptest.NewServer(mux)
		t.Cleanup(f.srv.Close)
	}
	f.URL = f.srv.URL
	return f
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func (f *Server) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil || !slices.Contains([]string{"client_credentials", "authorization_code", "refresh_token"}, r.PostForm.Get("grant_type")) {
		w.WriteHeader(http.StatusBadRequest)
		writeJSON(w, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	method := ""
	if id, secret, ok := r.BasicAuth(); ok && id == ClientID && secret == Secret {
		method = "client_secret_basic"
	} else if r.PostForm.Get("client_id") == ClientID && r.PostForm.Get("client_secret") == Secret {
		method = "client_secret_post"
	} else if a := r.PostForm.Get("client_assertion"); a != "" && f.PublicKey != nil &&
		r.PostForm.Get("client_assertion_type") == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" && f.verifyJWT(a) {
		method = "private_key_jwt"
	}
	if method == "" {
		w.WriteHeader(http.StatusUnauthorized)
		writeJSON(w, map[string]string{"error": "invalid_client", "error_description": "bad client authentication"})
		return
	}
	grant := r.PostForm.Get("grant_type")
	f.mu.Lock()
	scope := r.PostForm.Get("scope") // client credentials: the token request's
	switch grant {
	case "refresh_token":
		granted, ok := f.refresh[r.PostForm.Get("refresh_token")]
		if !ok {
			f.mu.Unlock()
			w.WriteHeader(http.StatusBadRequest)
			writeJSON(w, map[string]string{"error": "invalid_grant"})
			return
		}
		delete(f.refresh, r.PostForm.Get("refresh_token")) // rotated
		f.stats.Refreshes++
		scope = granted
	case "authorization_code":
		asked, ok := f.codes[r.PostForm.Get("code")]
		if !ok {
			f.mu.Unlock()
			w.WriteHeader(http.StatusBadRequest)
			writeJSON(w, map[string]string{"error": "invalid_grant"})
			return
		}
		delete(f.codes, r.PostForm.Get("code"))
		scope = asked
	}
	tok := fmt.Sprintf("tok-%d-%s", len(f.stats.Issued), rand.Text())
	scopes := strings.Fields(scope)
	f.tokens[tok] = token{expiry: time.Now().Add(f.Lifetime), scopes: scopes}
	f.stats.Issued = append(f.stats.Issued, tok)
	f.stats.Methods = append(f.stats.Methods, method)
	f.stats.Resources = append(f.stats.Resources, r.PostForm.Get("resource"))
	f.stats.Scopes = append(f.stats.Scopes, scope)
	answer := map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": int(f.Lifetime / time.Second)}
	if grant != "client_credentials" {
		rt := "refresh-" + rand.Text()
		f.refresh[rt] = scope
		f.stats.Issued = append(f.stats.Issued, rt)
		answer["refresh_token"] = rt
	}
	if f.Grants != nil {
		answer["scope"] = scope
	}
	f.mu.Unlock()
	writeJSON(w, answer)
}

// verifyJWT checks an ES256 client assertion: signature, iss and sub the client, aud the issuer.
func (f *Server) verifyJWT(a string) bool {
	parts := strings.Split(a, ".")
	if len(parts) != 3 {
		return false
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || len(sig) != 64 {
		return false
	}
	d := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if !ecdsa.Verify(f.PublicKey, d[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return false
	}
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	var c struct {
		Iss, Sub, Aud string
		Exp           int64
	}
	return json.Unmarshal(payload, &c) == nil && c.Iss == ClientID && c.Sub == ClientID &&
		c.Aud == f.URL && c.Exp > time.Now().Unix()
}

func (f *Server) protect(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		meta := f.URL + "/.well-known/oauth-protected-resource/mcp"
		f.mu.Lock()
		tok, ok := f.tokens[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
		if !ok || time.Now().After(tok.expiry) {
			f.stats.Challenges++
			f.mu.Unlock()
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata=%q`, meta))
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		f.mu.Unlock()
		if f.StepUp && r.Body != nil {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if bytes.Contains(body, []byte(`"tools/call"`)) && !slices.Contains(tok.scopes, "write") {
				w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope="read write", resource_metadata=%q`, meta))
				http.Error(w, "forbidden", http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// RevokeAll makes every token and refresh token f issued invalid.
func (f *Server) RevokeAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	clear(f.tokens)
	clear(f.refresh)
}

// RevokeAccess makes every access token f issued invalid, and leaves the refresh tokens valid
// (a server that ends its access tokens early, or issues them with no expires_in).
func (f *Server) RevokeAccess() {
	f.mu.Lock()
	defer f.mu.Unlock()
	clear(f.tokens)
}

// NoSecretIn fails t if text holds the client secret or any token f issued.
func (f *Server) NoSecretIn(t testing.TB, what, text string) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range append([]string{Secret}, f.stats.Issued...) {
		if strings.Contains(text, s) {
			t.Errorf("%s shows a secret %q", what, s)
		}
	}
}

// FollowRedirect plays the user's part of the authorization code grant: the fake's
// authorization endpoint redirects at once with the code.
func FollowRedirect(ctx context.Context, server, authURL string) (*auth.AuthorizationResult, error) {
	return authredirect.Follow(ctx, server, authURL)
}

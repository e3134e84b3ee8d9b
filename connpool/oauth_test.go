package connpool

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fakeOAuth is one origin that is both an MCP server protected by bearer tokens (RFC 9728
// metadata, 401 with resource_metadata) and its authorization server (RFC 8414 metadata, a
// client credentials token endpoint that checks client_secret_basic, client_secret_post
// or an ES256 private_key_jwt assertion).
type fakeOAuth struct {
	srv      *httptest.Server
	lifetime time.Duration
	stepUp   bool // tools/call needs scope "write": 403 insufficient_scope without it
	pub      *ecdsa.PublicKey

	mu         sync.Mutex
	tokens     map[string]fakeToken
	issued     []string        // every access token, in order
	methods    []string        // the client authentication of each token request
	resources  []string        // the resource parameter of each token request
	scopes     []string        // the scope parameter of each token request
	challenges int             // 401s answered
	refresh    map[string]bool // refresh tokens that are valid
	authorizes int             // authorization requests (a user's login)
	refreshes  int             // refresh_token grants answered with a token
}

type fakeToken struct {
	expiry time.Time
	scopes []string
}

const (
	fakeClientID = "agentpool-test"
	fakeSecret   = "s3cr3t-client-value"
)

func newFakeOAuth(t *testing.T, lifetime time.Duration) *fakeOAuth {
	f := &fakeOAuth{lifetime: lifetime, tokens: map[string]fakeToken{}, refresh: map[string]bool{}}
	server := mcp.NewServer(&mcp.Implementation{Name: "oauth-fake"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Text string `json:"text"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"resource": f.srv.URL + "/mcp", "authorization_servers": []string{f.srv.URL}, "scopes_supported": []string{"read"}})
	})
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{
			"issuer": f.srv.URL, "token_endpoint": f.srv.URL + "/token", "authorization_endpoint": f.srv.URL + "/authorize",
			"response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"},
			"grant_types_supported":                 []string{"client_credentials", "authorization_code", "refresh_token"},
			"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post", "private_key_jwt"},
		})
	})
	mux.HandleFunc("POST /token", f.token)
	mux.HandleFunc("GET /authorize", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.authorizes++
		f.mu.Unlock()
		q := r.URL.Query()
		http.Redirect(w, r, q.Get("redirect_uri")+"?code=the-code&state="+q.Get("state"), http.StatusFound)
	})
	mux.Handle("/mcp", f.protect(mcpHandler))
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func (f *fakeOAuth) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil || !slices.Contains([]string{"client_credentials", "authorization_code", "refresh_token"}, r.PostForm.Get("grant_type")) {
		w.WriteHeader(http.StatusBadRequest)
		writeJSON(w, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	method := ""
	if id, secret, ok := r.BasicAuth(); ok && id == fakeClientID && secret == fakeSecret {
		method = "client_secret_basic"
	} else if r.PostForm.Get("client_id") == fakeClientID && r.PostForm.Get("client_secret") == fakeSecret {
		method = "client_secret_post"
	} else if a := r.PostForm.Get("client_assertion"); a != "" && f.pub != nil &&
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
	if grant == "refresh_token" {
		if !f.refresh[r.PostForm.Get("refresh_token")] {
			f.mu.Unlock()
			w.WriteHeader(http.StatusBadRequest)
			writeJSON(w, map[string]string{"error": "invalid_grant"})
			return
		}
		delete(f.refresh, r.PostForm.Get("refresh_token")) // rotated
		f.refreshes++
	}
	tok := fmt.Sprintf("tok-%d-%s", len(f.issued), rand.Text())
	scopes := strings.Fields(r.PostForm.Get("scope"))
	f.tokens[tok] = fakeToken{expiry: time.Now().Add(f.lifetime), scopes: scopes}
	f.issued = append(f.issued, tok)
	f.methods = append(f.methods, method)
	f.resources = append(f.resources, r.PostForm.Get("resource"))
	f.scopes = append(f.scopes, r.PostForm.Get("scope"))
	answer := map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": int(f.lifetime / time.Second)}
	if grant != "client_credentials" {
		rt := "refresh-" + rand.Text()
		f.refresh[rt] = true
		f.issued = append(f.issued, rt)
		answer["refresh_token"] = rt
	}
	f.mu.Unlock()
	writeJSON(w, answer)
}

// verifyJWT checks an ES256 client assertion: signature, iss and sub the client, aud the issuer.
func (f *fakeOAuth) verifyJWT(a string) bool {
	parts := strings.Split(a, ".")
	if len(parts) != 3 {
		return false
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || len(sig) != 64 {
		return false
	}
	d := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if !ecdsa.Verify(f.pub, d[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return false
	}
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	var c struct {
		Iss, Sub, Aud string
		Exp           int64
	}
	return json.Unmarshal(payload, &c) == nil && c.Iss == fakeClientID && c.Sub == fakeClientID &&
		c.Aud == f.srv.URL && c.Exp > time.Now().Unix()
}

func (f *fakeOAuth) protect(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		meta := f.srv.URL + "/.well-known/oauth-protected-resource/mcp"
		f.mu.Lock()
		tok, ok := f.tokens[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
		if !ok || time.Now().After(tok.expiry) {
			f.challenges++
			f.mu.Unlock()
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata=%q`, meta))
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		f.mu.Unlock()
		if f.stepUp && r.Body != nil {
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

// revokeAll makes every token and refresh token f issued invalid.
func (f *fakeOAuth) revokeAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	clear(f.tokens)
	clear(f.refresh)
}

// ecKeyFile writes a new P-256 key as PKCS #8 PEM and returns its path and public key.
func ecKeyFile(t *testing.T) (string, *ecdsa.PublicKey) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "key.pem")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, &key.PublicKey
}

// debugLog returns a pool logger at debug level and what it wrote.
func debugLog() (*slog.Logger, *syncBuffer) {
	var b syncBuffer
	return slog.New(slog.NewTextHandler(&b, &slog.HandlerOptions{Level: slog.LevelDebug})), &b
}

// noSecretIn fails t if text holds the client secret or any token f issued.
func (f *fakeOAuth) noSecretIn(t *testing.T, what, text string) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range append([]string{fakeSecret}, f.issued...) {
		if strings.Contains(text, s) {
			t.Errorf("%s shows a secret %q", what, s)
		}
	}
}

func TestOAuthClientCredentials(t *testing.T) {
	keyFile, pub := ecKeyFile(t)
	for _, tc := range []struct {
		method string
		auth   OAuthConfig
	}{
		{"client_secret_basic", OAuthConfig{TokenEndpointAuth: AuthClientSecretBasic, ClientSecret: fakeSecret}},
		{"client_secret_post", OAuthConfig{TokenEndpointAuth: AuthClientSecretPost, ClientSecret: fakeSecret}},
		{"private_key_jwt", OAuthConfig{TokenEndpointAuth: AuthPrivateKeyJWT, PrivateKeyFile: keyFile}},
		{"client_secret_basic", OAuthConfig{ClientSecret: fakeSecret}}, // chosen: the RFC 7591 default
	} {
		t.Run(tc.method+"/"+tc.auth.TokenEndpointAuth, func(t *testing.T) {
			f := newFakeOAuth(t, time.Hour)
			f.pub = pub
			logger, logs := debugLog()
			p := newTestPool(t, &Options{Logger: logger})
			a := tc.auth
			a.Grant, a.ClientID = GrantClientCredentials, fakeClientID
			cfg := ServerConfig{Name: "m2m", URL: f.srv.URL + "/mcp", Auth: &a}
			if err := cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			c := mustGet(t, p, cfg, "")
			if got := mustCall(t, c, "echo", map[string]any{"text": "hi"}); got != "hi" {
				t.Errorf("echo = %q", got)
			}
			p.Release(c)
			f.mu.Lock()
			defer f.mu.Unlock()
			if len(f.methods) != 1 || f.methods[0] != tc.method {
				t.Errorf("token requests authenticated with %q, want one with %s", f.methods, tc.method)
			}
			if len(f.resources) != 1 || f.resources[0] != f.srv.URL+"/mcp" {
				t.Errorf("resource parameters %q, want the server's URL (RFC 8707)", f.resources)
			}
			if len(f.scopes) != 1 || f.scopes[0] != "read" {
				t.Errorf("scope parameters %q, want the metadata's scopes_supported", f.scopes)
			}
			f.mu.Unlock()
			f.noSecretIn(t, "the debug log", logs.String())
			f.mu.Lock()
		})
	}
}

// A provider issuing 2-second tokens: a session calling a tool every 100 ms for 7 s gets no
// error, and never sends an expired token (no 401 after the first), because the token is
// renewed before it expires, and not on every request either.
func TestOAuthRenewsShortLivedTokens(t *testing.T) {
	f := newFakeOAuth(t, 2*time.Second)
	logger, logs := debugLog()
	p := newTestPool(t, &Options{Logger: logger})
	cfg := ServerConfig{Name: "short", URL: f.srv.URL + "/mcp",
		Auth: &OAuthConfig{Grant: GrantClientCredentials, ClientID: fakeClientID, ClientSecret: fakeSecret}}
	c := mustGet(t, p, cfg, "")
	defer p.Release(c)
	calls := 0
	for end := time.Now().Add(7 * time.Second); time.Now().Before(end); calls++ {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		got, err := call(ctx, c, "echo", map[string]any{"text": "x"})
		cancel()
		if err != nil || got != "x" {
			t.Fatalf("call %d: %q, %v", calls, got, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	f.mu.Lock()
	issued, challenges := len(f.issued), f.challenges
	f.mu.Unlock()
	if challenges != 1 {
		t.Errorf("%d 401 answers, want only the first: an expired token was sent", challenges)
	}
	if issued < 4 || issued >= calls/2 {
		t.Errorf("%d tokens for %d calls over 7 s of 2 s tokens: want one per 1.5 s or so", issued, calls)
	}
	f.noSecretIn(t, "the debug log", logs.String())
}

// A 403 insufficient_scope asks for the token again with the scopes granted before and those
// the challenge names (step-up), then the call goes through.
func TestOAuthStepUp(t *testing.T) {
	f := newFakeOAuth(t, time.Hour)
	f.stepUp = true
	p := newTestPool(t, nil)
	cfg := ServerConfig{Name: "step", URL: f.srv.URL + "/mcp",
		Auth: &OAuthConfig{Grant: GrantClientCredentials, ClientID: fakeClientID, ClientSecret: fakeSecret}}
	c := mustGet(t, p, cfg, "")
	defer p.Release(c)
	if got := mustCall(t, c, "echo", map[string]any{"text": "up"}); got != "up" {
		t.Errorf("echo = %q", got)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if want := []string{"read", "read write"}; !slices.Equal(f.scopes, want) {
		t.Errorf("scopes asked for %q, want %q", f.scopes, want)
	}
}

// A server that needs a user's authorization, with no way to ask one (no AuthorizeUser, as in
// agentpool serve), fails at once, permanently, saying how to log in.
func TestOAuthNeedsLogin(t *testing.T) {
	f := newFakeOAuth(t, time.Hour)
	p := newTestPool(t, nil)
	cfg := ServerConfig{Name: "user", URL: f.srv.URL + "/mcp", Auth: &OAuthConfig{Grant: GrantAuthorizationCode, ClientID: "pre"}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := p.Get(ctx, cfg, "")
	for _, want := range []error{ErrStart, ErrPermanent, ErrNeedsLogin} {
		if !errors.Is(err, want) {
			t.Errorf("Get = %v, want it to wrap %v", err, want)
		}
	}
	if err == nil || !strings.Contains(err.Error(), "needs login: run agentpool login user") {
		t.Errorf("Get = %v, want it to say: needs login: run agentpool login user", err)
	}
}

func TestOAuthConfigValidate(t *testing.T) {
	u := "https://h.example/mcp"
	for _, tc := range []struct {
		name string
		cfg  ServerConfig
		want string // "" for valid
	}{
		{"cc basic", ServerConfig{URL: u, Auth: &OAuthConfig{Grant: GrantClientCredentials, ClientID: "a", ClientSecret: "b"}}, ""},
		{"cc jwt", ServerConfig{URL: u, Auth: &OAuthConfig{Grant: GrantClientCredentials, ClientID: "a", TokenEndpointAuth: AuthPrivateKeyJWT, PrivateKeyFile: "/k.pem"}}, ""},
		{"code dcr", ServerConfig{URL: u, Auth: &OAuthConfig{Grant: GrantAuthorizationCode}}, ""},
		{"code cimd", ServerConfig{URL: u, Auth: &OAuthConfig{Grant: GrantAuthorizationCode, ClientMetadataURL: "https://me.example/client.json"}}, ""},
		{"stdio", ServerConfig{Command: "x", Auth: &OAuthConfig{Grant: GrantAuthorizationCode}}, "auth is only valid for HTTP servers"},
		{"grant", ServerConfig{URL: u, Auth: &OAuthConfig{Grant: "password"}}, `unknown grant "password"`},
		{"cc no id", ServerConfig{URL: u, Auth: &OAuthConfig{Grant: GrantClientCredentials, ClientSecret: "b"}}, "needs a client id"},
		{"cc no secret", ServerConfig{URL: u, Auth: &OAuthConfig{Grant: GrantClientCredentials, ClientID: "a"}}, "needs a client secret or private_key_jwt"},
		{"jwt no key", ServerConfig{URL: u, Auth: &OAuthConfig{Grant: GrantClientCredentials, ClientID: "a", TokenEndpointAuth: AuthPrivateKeyJWT}}, "needs a private key file"},
		{"method", ServerConfig{URL: u, Auth: &OAuthConfig{Grant: GrantClientCredentials, ClientID: "a", ClientSecret: "b", TokenEndpointAuth: "tls"}}, `unknown token endpoint auth "tls"`},
		{"redirect", ServerConfig{URL: u, Auth: &OAuthConfig{Grant: GrantAuthorizationCode, RedirectURL: "http://evil.example/cb"}}, "loopback"},
		{"cimd http", ServerConfig{URL: u, Auth: &OAuthConfig{Grant: GrantAuthorizationCode, ClientMetadataURL: "http://me.example/c.json"}}, "https URL with a path"},
		{"header too", ServerConfig{URL: u, Headers: map[string]string{"authorization": "Bearer x"}, Auth: &OAuthConfig{Grant: GrantAuthorizationCode}}, "Authorization header and auth both set"},
	} {
		err := tc.cfg.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrInvalidConfig)):
			t.Errorf("%s: Validate = %v, want ErrInvalidConfig saying %q", tc.name, err, tc.want)
		}
	}
	a := ServerConfig{URL: u, Auth: &OAuthConfig{Grant: GrantClientCredentials, ClientID: "a", ClientSecret: "b"}}
	b := ServerConfig{URL: u, Auth: &OAuthConfig{Grant: GrantClientCredentials, ClientID: "a", ClientSecret: "c"}}
	if a.Fingerprint() == b.Fingerprint() || a.Fingerprint() == (ServerConfig{URL: u}).Fingerprint() {
		t.Error("servers with different credentials share a fingerprint")
	}
}

// followRedirect plays the user's part of the authorization code grant: the fake's
// authorization endpoint redirects at once with the code.
func followRedirect(ctx context.Context, _, authURL string) (*auth.AuthorizationResult, error) {
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		return nil, err
	}
	return &auth.AuthorizationResult{Code: loc.Query().Get("code"), State: loc.Query().Get("state")}, nil
}

// A user's token is stored (0600, in a 0700 folder) once they have authorized, so that
// another pool (agentpool serve after agentpool login) uses it without asking them: its
// expired access token is refreshed with the stored refresh token, and the rotated one
// stored. Once revoked, the server needs login again. No token shows in any log line.
func TestOAuthTokenStore(t *testing.T) {
	f := newFakeOAuth(t, 2*time.Second)
	dir := filepath.Join(t.TempDir(), "agentpool", "tokens")
	store := &FileTokenStore{Dir: dir}
	cfg := ServerConfig{Name: "crm", URL: f.srv.URL + "/mcp",
		Auth: &OAuthConfig{Grant: GrantAuthorizationCode, ClientID: fakeClientID, ClientSecret: fakeSecret}}
	logger, logs := debugLog()

	login := newTestPool(t, &Options{Logger: logger, AuthorizeUser: followRedirect, Tokens: store})
	c := mustGet(t, login, cfg, "")
	if got := mustCall(t, c, "echo", map[string]any{"text": "a"}); got != "a" {
		t.Fatalf("echo = %q", got)
	}
	login.Release(c)
	files, err := os.ReadDir(dir)
	if err != nil || len(files) != 1 {
		t.Fatalf("token folder holds %v (%v), want one file", files, err)
	}
	for path, want := range map[string]os.FileMode{dir: 0o700, filepath.Join(dir, files[0].Name()): 0o600} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v (%v), want %v", path, fi.Mode().Perm(), err, want)
		}
	}

	time.Sleep(2500 * time.Millisecond) // the stored access token expires
	serve := newTestPool(t, &Options{Logger: logger, Tokens: store})
	c = mustGet(t, serve, cfg, "")
	for i := range 3 { // across an expiry of the refreshed token too
		if got := mustCall(t, c, "echo", map[string]any{"text": "b"}); got != "b" {
			t.Fatalf("echo = %q", got)
		}
		if i < 2 {
			time.Sleep(1500 * time.Millisecond)
		}
	}
	serve.Release(c)
	f.mu.Lock()
	authorizes, refreshes := f.authorizes, f.refreshes
	f.mu.Unlock()
	if authorizes != 1 || refreshes < 2 {
		t.Errorf("%d logins and %d refreshes, want the one login and the stored token refreshed", authorizes, refreshes)
	}

	// End the sessions while their tokens are good (a DELETE with a revoked one is refused,
	// and the fake server would keep the session).
	for _, p := range []*Pool{login, serve} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		if err := p.ClosePartition(ctx, ""); err != nil {
			t.Error(err)
		}
		cancel()
	}
	f.revokeAll()
	time.Sleep(2500 * time.Millisecond)
	after := newTestPool(t, &Options{Logger: logger, Tokens: store})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := after.Get(ctx, cfg, ""); !errors.Is(err, ErrNeedsLogin) || !errors.Is(err, ErrPermanent) {
		t.Errorf("Get with a revoked token = %v, want ErrNeedsLogin and ErrPermanent", err)
	}
	f.noSecretIn(t, "the debug log", logs.String())
}

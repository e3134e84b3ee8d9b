package connpool

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/internal/oauthtest"
)

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

func TestOAuthClientCredentials(t *testing.T) {
	keyFile, pub := ecKeyFile(t)
	for _, tc := range []struct {
		method string
		auth   decl.Auth
	}{
		{"client_secret_basic", decl.Auth{TokenEndpointAuth: AuthClientSecretBasic, ClientSecret: oauthtest.Secret}},
		{"client_secret_post", decl.Auth{TokenEndpointAuth: AuthClientSecretPost, ClientSecret: oauthtest.Secret}},
		{"private_key_jwt", decl.Auth{TokenEndpointAuth: AuthPrivateKeyJWT, PrivateKeyFile: keyFile}},
		{"client_secret_basic", decl.Auth{ClientSecret: oauthtest.Secret}}, // chosen: the RFC 7591 default
	} {
		t.Run(tc.method+"/"+tc.auth.TokenEndpointAuth, func(t *testing.T) {
			f := oauthtest.New(t, time.Hour)
			f.PublicKey = pub
			logger, logs := debugLog()
			p := newTestPool(t, &Options{Logger: logger})
			a := tc.auth
			a.Type, a.ClientID = GrantClientCredentials, oauthtest.ClientID
			cfg := ServerConfig{Name: "m2m", Server: decl.Server{URL: f.URL + "/mcp", Auth: &a}}
			if err := cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			c := mustGet(t, p, cfg, "")
			if got := mustCall(t, c, "echo", map[string]any{"text": "hi"}); got != "hi" {
				t.Errorf("echo = %q", got)
			}
			p.Release(c)
			st := f.Stats()
			if len(st.Methods) != 1 || st.Methods[0] != tc.method {
				t.Errorf("token requests authenticated with %q, want one with %s", st.Methods, tc.method)
			}
			if len(st.Resources) != 1 || st.Resources[0] != f.URL+"/mcp" {
				t.Errorf("resource parameters %q, want the server's URL (RFC 8707)", st.Resources)
			}
			if len(st.Scopes) != 1 || st.Scopes[0] != "read" {
				t.Errorf("scope parameters %q, want the metadata's scopes_supported", st.Scopes)
			}
			f.NoSecretIn(t, "the debug log", logs.String())
		})
	}
}

// A provider issuing 2-second tokens: a session calling a tool every 100 ms for 7 s gets no
// error, and never sends an expired token (no 401 after the first), because the token is
// renewed before it expires, and not on every request either. The clock is a synctest
// bubble's, the server in memory.
func TestOAuthRenewsShortLivedTokens(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := oauthtest.NewInMemory(t, 2*time.Second)
		logger, logs := debugLog()
		p := newTestPool(t, &Options{Logger: logger, DialContext: f.Dial})
		cfg := ServerConfig{Name: "short", Server: decl.Server{URL: f.URL + "/mcp", Auth: &decl.Auth{Type: GrantClientCredentials, ClientID: oauthtest.ClientID, ClientSecret: oauthtest.Secret}}}
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
			advance(100 * time.Millisecond)
		}
		st := f.Stats()
		issued, challenges := len(st.Issued), st.Challenges
		if challenges != 1 {
			t.Errorf("%d 401 answers, want only the first: an expired token was sent", challenges)
		}
		if issued < 4 || issued >= calls/2 {
			t.Errorf("%d tokens for %d calls over 7 s of 2 s tokens: want one per 1.5 s or so", issued, calls)
		}
		f.NoSecretIn(t, "the debug log", logs.String())
	})
}

// A 403 insufficient_scope asks for the token again with the scopes granted before and those
// the challenge names (step-up), then the call goes through.
func TestOAuthStepUp(t *testing.T) {
	f := oauthtest.New(t, time.Hour)
	f.StepUp = true
	p := newTestPool(t, nil)
	cfg := ServerConfig{Name: "step", Server: decl.Server{URL: f.URL + "/mcp", Auth: &decl.Auth{Type: GrantClientCredentials, ClientID: oauthtest.ClientID, ClientSecret: oauthtest.Secret}}}
	c := mustGet(t, p, cfg, "")
	defer p.Release(c)
	if got := mustCall(t, c, "echo", map[string]any{"text": "up"}); got != "up" {
		t.Errorf("echo = %q", got)
	}
	if want, got := []string{"read", "read write"}, f.Stats().Scopes; !slices.Equal(got, want) {
		t.Errorf("scopes asked for %q, want %q", got, want)
	}
}

// A server that needs a user's authorization, with no way to ask one (no AuthorizeUser, as in
// agentpool serve), fails at once, permanently, saying how to log in.
func TestOAuthNeedsLogin(t *testing.T) {
	f := oauthtest.New(t, time.Hour)
	p := newTestPool(t, nil)
	cfg := ServerConfig{Name: "user", Server: decl.Server{URL: f.URL + "/mcp", Auth: &decl.Auth{Type: GrantAuthorizationCode, ClientID: "pre"}}}
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
		{"cc basic", ServerConfig{Server: decl.Server{URL: u, Auth: &decl.Auth{Type: GrantClientCredentials, ClientID: "a", ClientSecret: "b"}}}, ""},
		{"cc jwt", ServerConfig{Server: decl.Server{URL: u, Auth: &decl.Auth{Type: GrantClientCredentials, ClientID: "a", TokenEndpointAuth: AuthPrivateKeyJWT, PrivateKeyFile: "/k.pem"}}}, ""},
		{"code dcr", ServerConfig{Server: decl.Server{URL: u, Auth: &decl.Auth{Type: GrantAuthorizationCode}}}, ""},
		{"code cimd", ServerConfig{Server: decl.Server{URL: u, Auth: &decl.Auth{Type: GrantAuthorizationCode, ClientMetadataURL: "https://me.example/client.json"}}}, ""},
		{"stdio", ServerConfig{Server: decl.Server{Command: "x", Auth: &decl.Auth{Type: GrantAuthorizationCode}}}, "auth is only valid for HTTP servers"},
		{"grant", ServerConfig{Server: decl.Server{URL: u, Auth: &decl.Auth{Type: "password"}}}, `unknown grant "password"`},
		{"cc no id", ServerConfig{Server: decl.Server{URL: u, Auth: &decl.Auth{Type: GrantClientCredentials, ClientSecret: "b"}}}, "needs a client id"},
		{"cc no secret", ServerConfig{Server: decl.Server{URL: u, Auth: &decl.Auth{Type: GrantClientCredentials, ClientID: "a"}}}, "needs a client secret or private_key_jwt"},
		{"jwt no key", ServerConfig{Server: decl.Server{URL: u, Auth: &decl.Auth{Type: GrantClientCredentials, ClientID: "a", TokenEndpointAuth: AuthPrivateKeyJWT}}}, "needs a private key file"},
		{"method", ServerConfig{Server: decl.Server{URL: u, Auth: &decl.Auth{Type: GrantClientCredentials, ClientID: "a", ClientSecret: "b", TokenEndpointAuth: "tls"}}}, `unknown token endpoint auth "tls"`},
		{"redirect", ServerConfig{Server: decl.Server{URL: u, Auth: &decl.Auth{Type: GrantAuthorizationCode, RedirectPort: 70000}}}, "not a port number"},
		{"cimd http", ServerConfig{Server: decl.Server{URL: u, Auth: &decl.Auth{Type: GrantAuthorizationCode, ClientMetadataURL: "http://me.example/c.json"}}}, "https URL with a path"},
		{"header too", ServerConfig{Server: decl.Server{URL: u, Headers: map[string]string{"authorization": "Bearer x"}, Auth: &decl.Auth{Type: GrantAuthorizationCode}}}, "Authorization header and auth both set"},
	} {
		err := tc.cfg.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrInvalidConfig)):
			t.Errorf("%s: Validate = %v, want ErrInvalidConfig saying %q", tc.name, err, tc.want)
		}
	}
	a := ServerConfig{Server: decl.Server{URL: u, Auth: &decl.Auth{Type: GrantClientCredentials, ClientID: "a", ClientSecret: "b"}}}
	b := ServerConfig{Server: decl.Server{URL: u, Auth: &decl.Auth{Type: GrantClientCredentials, ClientID: "a", ClientSecret: "c"}}}
	if a.Fingerprint() == b.Fingerprint() || a.Fingerprint() == (ServerConfig{Server: decl.Server{URL: u}}).Fingerprint() {
		t.Error("servers with different credentials share a fingerprint")
	}
}

// A user's token is stored (0600, in a 0700 folder) once they have authorized, so that
// another pool (agentpool serve after agentpool login) uses it without asking them: its
// expired access token is refreshed with the stored refresh token, and the rotated one
// stored. Once revoked, the server needs login again. No token shows in any log line.
func TestOAuthTokenStore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := oauthtest.NewInMemory(t, 2*time.Second)
		dir := filepath.Join(t.TempDir(), "agentpool", "tokens")
		store := &FileTokenStore{Dir: dir}
		cfg := ServerConfig{Name: "crm", Server: decl.Server{URL: f.URL + "/mcp", Auth: &decl.Auth{Type: GrantAuthorizationCode, ClientID: oauthtest.ClientID, ClientSecret: oauthtest.Secret}}}
		logger, logs := debugLog()

		login := newTestPool(t, &Options{Logger: logger, AuthorizeUser: f.Authorize, Tokens: store, DialContext: f.Dial})
		c := mustGet(t, login, cfg, "")
		if got := mustCall(t, c, "echo", map[string]any{"text": "a"}); got != "a" {
			t.Fatalf("echo = %q", got)
		}
		login.Release(c)
		files, err := os.ReadDir(dir)
		if err != nil || len(files) != 1 {
			t.Fatalf("token folder holds %v (%v), want one file", files, err)
		}
		var stored StoredToken
		if data, err := os.ReadFile(filepath.Join(dir, files[0].Name())); err != nil || json.Unmarshal(data, &stored) != nil {
			t.Fatalf("the stored token does not read: %v", err)
		}
		if stored.Resource != f.URL+"/mcp" {
			t.Errorf("stored resource %q, want the one the login asked for, %q: a later refresh asks for it again", stored.Resource, f.URL+"/mcp")
		}
		for path, want := range map[string]os.FileMode{dir: 0o700, filepath.Join(dir, files[0].Name()): 0o600} {
			if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
				t.Errorf("%s: mode %v (%v), want %v", path, fi.Mode().Perm(), err, want)
			}
		}

		advance(2500 * time.Millisecond) // the stored access token expires
		serve := newTestPool(t, &Options{Logger: logger, Tokens: store, DialContext: f.Dial})
		c = mustGet(t, serve, cfg, "")
		for i := range 3 { // across an expiry of the refreshed token too
			if got := mustCall(t, c, "echo", map[string]any{"text": "b"}); got != "b" {
				t.Fatalf("echo = %q", got)
			}
			if i < 2 {
				advance(1500 * time.Millisecond)
			}
		}
		serve.Release(c)
		st := f.Stats()
		authorizes, refreshes := st.Authorizes, st.Refreshes
		if authorizes != 1 || refreshes < 2 {
			t.Errorf("%d logins and %d refreshes, want the one login and the stored token refreshed", authorizes, refreshes)
		}
		for i, res := range st.Resources { // RFC 8707 §2.2: the refresh requests too
			if res != f.URL+"/mcp" {
				t.Errorf("token request %d of %d: resource %q, want the server's URL", i+1, len(st.Resources), res)
			}
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
		f.RevokeAll()
		advance(2500 * time.Millisecond)
		after := newTestPool(t, &Options{Logger: logger, Tokens: store, DialContext: f.Dial})
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if _, err := after.Get(ctx, cfg, ""); !errors.Is(err, ErrNeedsLogin) || !errors.Is(err, ErrPermanent) {
			t.Errorf("Get with a revoked token = %v, want ErrNeedsLogin and ErrPermanent", err)
		}
		f.NoSecretIn(t, "the debug log", logs.String())
	})
}

// The scopes a user granted, a step-up's included, are stored with the token: when another
// run has to authorize again (the stored token revoked), it asks for them at once rather
// than for the metadata's scopes and a second step-up.
func TestOAuthStepUpScopesStored(t *testing.T) {
	f := oauthtest.New(t, time.Hour)
	f.StepUp = true
	store := &FileTokenStore{Dir: filepath.Join(t.TempDir(), "tokens")}
	cfg := ServerConfig{Name: "step", Server: decl.Server{URL: f.URL + "/mcp", Auth: &decl.Auth{Type: GrantAuthorizationCode, ClientID: oauthtest.ClientID, ClientSecret: oauthtest.Secret}}}
	first := newTestPool(t, &Options{AuthorizeUser: oauthtest.FollowRedirect, Tokens: store})
	c := mustGet(t, first, cfg, "")
	if got := mustCall(t, c, "echo", map[string]any{"text": "up"}); got != "up" {
		t.Fatalf("echo = %q", got)
	}
	first.Release(c)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := first.ClosePartition(ctx, ""); err != nil {
		t.Fatal(err)
	}
	f.RevokeAll()
	asked := len(f.Stats().Scopes)

	second := newTestPool(t, &Options{AuthorizeUser: oauthtest.FollowRedirect, Tokens: store})
	c = mustGet(t, second, cfg, "")
	defer second.Release(c)
	if got := mustCall(t, c, "echo", map[string]any{"text": "again"}); got != "again" {
		t.Fatalf("echo = %q", got)
	}
	// One token request, for both scopes: in any order (the go-sdk unions scopes in a map).
	got := f.Stats().Scopes[asked:]
	if len(got) != 1 || !slices.Equal(slices.Sorted(slices.Values(strings.Fields(got[0]))), []string{"read", "write"}) {
		t.Errorf("the second run asked for scopes %q, want the stored %q at once", got, "read write")
	}
}

// A server that refuses an access token before its expiry (revoked early, or issued with no
// expires_in) while its refresh token is good: the token is refreshed and the request sent
// again, rather than a new login asked for, which serve cannot do.
func TestOAuthRefreshesARefusedToken(t *testing.T) {
	f := oauthtest.New(t, time.Hour)
	cfg, store := loggedIn(t, f)

	serve := newTestPool(t, &Options{Tokens: store}) // no way to ask the user
	c := mustGet(t, serve, cfg, "")
	defer serve.Release(c)
	f.RevokeAccess()
	if got := mustCall(t, c, "echo", map[string]any{"text": "b"}); got != "b" {
		t.Errorf("echo after the access token was refused = %q", got)
	}
	if st := f.Stats(); st.Refreshes != 1 || st.Authorizes != 1 {
		t.Errorf("%d refreshes and %d logins, want one refresh and only the first login", st.Refreshes, st.Authorizes)
	}
}

// The scopes stored with a token are those the authorization server says it granted (the
// token answer's scope), not all those asked for: a user who approved only some has not
// granted the others, and a later authorization must not ask for them as granted.
func TestOAuthStoresGrantedNotAskedScopes(t *testing.T) {
	f := oauthtest.New(t, time.Hour)
	f.Scopes = []string{"read", "admin"}
	f.Grants = []string{"read"} // the user approves read only
	dir := filepath.Join(t.TempDir(), "tokens")
	store := &FileTokenStore{Dir: dir}
	cfg := ServerConfig{Name: "crm", Server: decl.Server{URL: f.URL + "/mcp", Auth: &decl.Auth{Type: GrantAuthorizationCode, ClientID: oauthtest.ClientID, ClientSecret: oauthtest.Secret}}}
	p := newTestPool(t, &Options{AuthorizeUser: oauthtest.FollowRedirect, Tokens: store})
	c := mustGet(t, p, cfg, "")
	defer p.Release(c)
	mustCall(t, c, "echo", map[string]any{"text": "a"})
	st, err := store.Load(TokenKey{Server: "crm", URL: cfg.URL})
	if err != nil || st == nil {
		t.Fatalf("no stored token: %v", err)
	}
	if !slices.Equal(st.Scopes, []string{"read"}) {
		t.Errorf("stored scopes %q, want the granted %q only", st.Scopes, []string{"read"})
	}
}

// Two sessions' clients of one server share the user's token: with a server that rotates
// refresh tokens (each one good once), both go on across expiries, one refresh for both,
// where each refreshing on its own made the second one's refresh be refused and its session
// need a login.
func TestOAuthPartitionsShareTheToken(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := oauthtest.NewInMemory(t, 2*time.Second)
		cfg, store := loggedIn(t, f)

		serve := newTestPool(t, &Options{Tokens: store, DialContext: f.Dial})
		a, b := mustGet(t, serve, cfg, "session-a"), mustGet(t, serve, cfg, "session-b")
		defer serve.Release(a)
		defer serve.Release(b)
		for i := range 4 { // across two expiries
			for _, c := range []*Conn{a, b} {
				if got := mustCall(t, c, "echo", map[string]any{"text": "x"}); got != "x" {
					t.Fatalf("round %d: echo = %q", i, got)
				}
			}
			advance(900 * time.Millisecond)
		}
		if st := f.Stats(); st.Authorizes != 1 {
			t.Errorf("%d logins, want the first only", st.Authorizes)
		}
	})
}

// A user who logs in again elsewhere (agentpool login, another process, after the tokens were
// revoked) is seen by a serving pool that already shares a token for that server: a new
// session's client takes the stored token, and so does the running one, rather than keeping
// the revoked one and needing a login that serve cannot ask for.
func TestOAuthSharedTokenTakesAnotherLogin(t *testing.T) {
	f := oauthtest.New(t, time.Hour)
	store := &FileTokenStore{Dir: filepath.Join(t.TempDir(), "tokens")}
	cfg := ServerConfig{Name: "crm", Server: decl.Server{URL: f.URL + "/mcp", Auth: &decl.Auth{Type: GrantAuthorizationCode, ClientID: oauthtest.ClientID, ClientSecret: oauthtest.Secret}}}
	login := func() {
		p := newTestPool(t, &Options{AuthorizeUser: oauthtest.FollowRedirect, Tokens: store})
		c := mustGet(t, p, cfg, "")
		mustCall(t, c, "echo", map[string]any{"text": "a"})
		p.Release(c)
	}
	login()

	serve := newTestPool(t, &Options{Tokens: store})
	a := mustGet(t, serve, cfg, "session-a")
	defer serve.Release(a)
	mustCall(t, a, "echo", map[string]any{"text": "x"})
	f.RevokeAll()
	login() // elsewhere: another pool, as another process

	b := mustGet(t, serve, cfg, "session-b")
	defer serve.Release(b)
	for _, c := range []*Conn{b, a} {
		if got := mustCall(t, c, "echo", map[string]any{"text": "y"}); got != "y" {
			t.Errorf("echo = %q", got)
		}
	}
	if st := f.Stats(); st.Authorizes != 2 {
		t.Errorf("%d logins, want the two", st.Authorizes)
	}
}

// A refresh's first use of the pool's token client while the pool closes (a call in flight
// past Close) is no data race with the close of its idle connections.
func TestOAuthSharedRefreshClientAtClose(t *testing.T) {
	var s sharedTokens
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.client()
	}()
	s.close()
	<-done
	s.close()
}

// loggedIn is `agentpool login crm` against f (in memory or not): a user's authorization (authorization code,
// pre-registered client) whose token is kept in the store returned, with the server's config.
func loggedIn(t *testing.T, f *oauthtest.Server) (ServerConfig, *FileTokenStore) {
	t.Helper()
	store := &FileTokenStore{Dir: filepath.Join(t.TempDir(), "tokens")}
	cfg := ServerConfig{Name: "crm", Server: decl.Server{URL: f.URL + "/mcp", Auth: &decl.Auth{Type: GrantAuthorizationCode, ClientID: oauthtest.ClientID, ClientSecret: oauthtest.Secret}}}
	login := newTestPool(t, &Options{AuthorizeUser: f.Authorize, Tokens: store, DialContext: f.Dial})
	c := mustGet(t, login, cfg, "")
	mustCall(t, c, "echo", map[string]any{"text": "a"})
	login.Release(c)
	return cfg, store
}

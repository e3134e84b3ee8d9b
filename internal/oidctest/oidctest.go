// Package oidctest runs a real OpenID provider for tests: testdata/oidc/provider.mjs, an
// oidc-provider (npm, installed in testdata/npm by make test) on 127.0.0.1 with dynamic client
// registration, resource indicators (RFC 8707) whose access tokens are RS256 JWTs (RFC 9068),
// an authorization endpoint that logs in whichever user the request's login_hint names
// without a page, and signing key rotation.
package oidctest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"golang.org/x/oauth2"
)

// Provider is a running provider.mjs.
type Provider struct {
	// Issuer is the provider's issuer URL, http://127.0.0.1:PORT; its metadata is at
	// Issuer+"/.well-known/openid-configuration".
	Issuer string
	// TokenTTL is the lifetime of the access tokens it issues.
	TokenTTL time.Duration

	meta      metadata
	stderr    *lockedBuffer
	transport *http.Transport // every request of this package's, closed at cleanup
	hc        *http.Client
	stdin     io.Closer     // closing it stops the provider
	exited    chan struct{} // closed once the provider has exited

	mu     sync.Mutex
	client string // the client UserToken registered, once
}

// metadata is what this package uses of the provider's discovery document.
type metadata struct {
	Issuer                string `json:"issuer"`
	AuthorizationEndpoint string `json:"authorization_endpoint"`
	TokenEndpoint         string `json:"token_endpoint"`
	RegistrationEndpoint  string `json:"registration_endpoint"`
	JWKSURI               string `json:"jwks_uri"`
}

// Options configures Start; nil is the defaults.
type Options struct {
	// TokenTTL is the lifetime of access tokens, in whole seconds; 0 is 5 minutes.
	TokenTTL time.Duration
}

// userRedirect is the redirect URI of the client UserToken registers: nothing listens there,
// the flow stops at the redirect.
const userRedirect = "http://127.0.0.1/callback"

// Start starts the provider, stopped at t's cleanup. It fails t when node or oidc-provider is
// missing: a test that needs it never passes without it.
func Start(t testing.TB, opts *Options) *Provider {
	t.Helper()
	ttl := 5 * time.Minute
	if opts != nil && opts.TokenTTL != 0 {
		ttl = opts.TokenTTL
	}
	if ttl < time.Second || ttl%time.Second != 0 {
		t.Fatalf("oidctest: TokenTTL %v is not a whole number of seconds", ttl)
	}
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("oidctest: cannot locate the repository")
	}
	testdata := filepath.Join(filepath.Dir(file), "..", "..", "testdata")
	if _, err := os.Stat(filepath.Join(testdata, "npm", "node_modules", "oidc-provider", "package.json")); err != nil {
		t.Fatalf("oidctest: oidc-provider is not installed (%v): run make test, which runs npm ci in testdata/npm", err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("oidctest: node not found: the OpenID provider needs Node 20: %v", err)
	}

	cmd := exec.Command(node, filepath.Join(testdata, "oidc", "provider.mjs"), "--access-token-ttl", strconv.Itoa(int(ttl/time.Second)))
	stdin, err := cmd.StdinPipe() // the provider exits when it closes, even if this process is killed
	if err != nil {
		t.Fatal(err)
	}
	first := &firstLine{line: make(chan string, 1)}
	p := &Provider{TokenTTL: ttl, stderr: &lockedBuffer{}, transport: http.DefaultTransport.(*http.Transport).Clone()}
	p.hc = &http.Client{Transport: p.transport}
	cmd.Stdout, cmd.Stderr = first, p.stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatalf("oidctest: starting the provider: %v", err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	p.stdin, p.exited = stdin, exited
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
		p.transport.CloseIdleConnections()
		if t.Failed() {
			t.Logf("oidctest: the provider's stderr:\n%s", p.stderr)
		}
	})

	select {
	case line := <-first.line:
		var hello struct{ Issuer string }
		if err := json.Unmarshal([]byte(line), &hello); err != nil || hello.Issuer == "" {
			t.Fatalf("oidctest: the provider said %q, not {\"issuer\":...}; stderr:\n%s", line, p.stderr)
		}
		p.Issuer = hello.Issuer
	case <-exited:
		t.Fatalf("oidctest: the provider exited (%v) before listening; stderr:\n%s", waitErr, p.stderr)
	case <-time.After(30 * time.Second):
		t.Fatalf("oidctest: the provider did not start in 30s; stderr:\n%s", p.stderr)
	}

	if err := p.getJSON(t.Context(), p.Issuer+"/.well-known/openid-configuration", &p.meta); err != nil {
		t.Fatalf("oidctest: %v", err)
	}
	if p.meta.Issuer != p.Issuer {
		t.Fatalf("oidctest: the discovery document's issuer is %q, not %q", p.meta.Issuer, p.Issuer)
	}
	return p
}

// Rotate makes a new RS256 key sign the provider's tokens from now on, keeping the old keys in
// its JWKS, so that tokens they signed still verify; drop instead removes the old keys from
// the JWKS (no new key: the one signing now stays), so that tokens they signed no longer do.
func (p *Provider) Rotate(t testing.TB, drop bool) {
	t.Helper()
	u := p.Issuer + "/admin/rotate"
	if drop {
		u += "?drop=1"
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := p.hc.Do(req)
	if err != nil {
		t.Fatalf("oidctest: rotate: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("oidctest: rotate: %s: %s", resp.Status, body)
	}
}

// UserToken returns an access token (a JWT) for user at resource, with the scopes among
// scopes that the provider allows for a resource (mcp and agent:NAME): it registers a client
// (once), runs the authorization code grant with PKCE, login_hint user and resource, and
// exchanges the code.
func (p *Provider) UserToken(t testing.TB, user, resource string, scopes ...string) string {
	t.Helper()
	ctx := context.WithValue(t.Context(), oauth2.HTTPClient, p.hc)
	cfg := &oauth2.Config{
		ClientID:    p.registerUserClient(t),
		Endpoint:    oauth2.Endpoint{AuthURL: p.meta.AuthorizationEndpoint, TokenURL: p.meta.TokenEndpoint, AuthStyle: oauth2.AuthStyleInParams},
		RedirectURL: userRedirect,
		Scopes:      scopes,
	}
	verifier, state := oauth2.GenerateVerifier(), rand.Text()
	authURL := cfg.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", resource))
	res, err := p.FollowRedirect(ctx, &auth.AuthorizationArgs{URL: authURL}, user)
	if err != nil {
		t.Fatalf("oidctest: authorizing %s: %v", user, err)
	}
	if res.State != state || res.Iss != p.Issuer {
		t.Fatalf("oidctest: authorization response state %q iss %q, want %q and %q", res.State, res.Iss, state, p.Issuer)
	}
	tok, err := cfg.Exchange(ctx, res.Code, oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", resource))
	if err != nil {
		t.Fatalf("oidctest: exchanging %s's code: %v", user, err)
	}
	return tok.AccessToken
}

// registerUserClient registers UserToken's client, a public native client, the first time.
func (p *Provider) registerUserClient(t testing.TB) string {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.client != "" {
		return p.client
	}
	body, _ := json.Marshal(map[string]any{
		"client_name":                "oidctest",
		"application_type":           "native",
		"redirect_uris":              []string{userRedirect},
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": "none",
	})
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, p.meta.RegistrationEndpoint, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := p.hc.Do(req)
	if err != nil {
		t.Fatalf("oidctest: registering a client: %v", err)
	}
	defer resp.Body.Close()
	var reg struct {
		ClientID string `json:"client_id"`
	}
	if resp.StatusCode != http.StatusCreated {
		msg, _ := io.ReadAll(resp.Body)
		t.Fatalf("oidctest: registering a client: %s: %s", resp.Status, msg)
	}
	if err := json.NewDecoder(resp.Body).Decode(&reg); err != nil || reg.ClientID == "" {
		t.Fatalf("oidctest: registering a client: no client_id (%v)", err)
	}
	p.client = reg.ClientID
	return p.client
}

// FollowRedirect plays user's part of the authorization code grant, as a go-sdk
// [auth.AuthorizationCodeFetcher] body: it GETs args.URL with login_hint=user and follows the
// provider's redirects (keeping its cookies) until one goes to the request's redirect_uri,
// whose code, state and iss it returns. An error response there is an error.
func (p *Provider) FollowRedirect(ctx context.Context, args *auth.AuthorizationArgs, user string) (*auth.AuthorizationResult, error) {
	authURL, err := url.Parse(args.URL)
	if err != nil {
		return nil, err
	}
	q := authURL.Query()
	redirect, err := url.Parse(q.Get("redirect_uri"))
	if err != nil || redirect.Host == "" {
		return nil, fmt.Errorf("oidctest: the authorization URL has no redirect_uri: %s", args.URL)
	}
	q.Set("login_hint", user)
	authURL.RawQuery = q.Encode()

	atRedirect := func(u *url.URL) bool {
		return u.Scheme == redirect.Scheme && u.Host == redirect.Host && u.Path == redirect.Path
	}
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Transport: p.transport, Jar: jar, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if atRedirect(req.URL) {
			return http.ErrUseLastResponse
		}
		if len(via) >= 10 {
			return errors.New("oidctest: more than 10 redirects")
		}
		return nil
	}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL.String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	loc, err := resp.Location()
	if err != nil || !atRedirect(loc) {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 2000))
		return nil, fmt.Errorf("oidctest: the authorization ended at %s (%s), not at the redirect URI: %s", resp.Request.URL, resp.Status, body)
	}
	lq := loc.Query()
	if e := lq.Get("error"); e != "" {
		return nil, fmt.Errorf("oidctest: authorization error %s: %s", e, lq.Get("error_description"))
	}
	return &auth.AuthorizationResult{Code: lq.Get("code"), State: lq.Get("state"), Iss: lq.Get("iss")}, nil
}

func (p *Provider) getJSON(ctx context.Context, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := p.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("GET %s: %v", u, err)
	}
	return nil
}

// firstLine is the provider's stdout: it sends the first line on line and drops the rest.
type firstLine struct {
	mu   sync.Mutex
	buf  []byte
	line chan string // capacity 1
	sent bool
}

func (w *firstLine) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.sent {
		w.buf = append(w.buf, b...)
		if line, _, ok := bytes.Cut(w.buf, []byte("\n")); ok {
			w.line <- strings.TrimSpace(string(line))
			w.sent, w.buf = true, nil
		}
	}
	return len(b), nil
}

// lockedBuffer is the provider's stderr, kept for failure messages.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

package bearer

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

func TestNewValidatesConfig(t *testing.T) {
	for _, cfg := range []Config{
		{},
		{Issuer: "http://idp.example"},
		{Issuer: "ftp://idp.example"},
		{Issuer: "idp.example"},
		{Issuer: "https://idp.example#x"},
		{Issuer: "https://idp.example", JWKSURL: "http://idp.example/jwks"},
		{Issuer: "https://idp.example", Leeway: -time.Second},
		{Issuer: "https://idp.example", Audiences: []string{""}},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) = nil error", cfg)
		}
	}
	for _, cfg := range []Config{
		{Issuer: "https://idp.example"},
		{Issuer: "https://idp.example/tenant/"},
		{Issuer: "http://127.0.0.1:8080"},
		{Issuer: "http://localhost:8080", JWKSURL: "http://[::1]:9/jwks"},
	} {
		if _, err := New(cfg); err != nil {
			t.Errorf("New(%+v): %v", cfg, err)
		}
	}
}

func TestNewFetchesNothing(t *testing.T) {
	k := newRSA(t, "k1")
	p := newIDP(t, k)
	newVerifier(t, Config{Issuer: p.issuer()}, nil)
	if n := p.metaHits.Load() + p.jwksHits.Load(); n != 0 {
		t.Errorf("New made %d requests", n)
	}
}

func TestDiscovery(t *testing.T) {
	for _, path := range []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"} {
		t.Run(path, func(t *testing.T) {
			k := newRSA(t, "k1")
			p := newIDP(t, k)
			p.set(func(p *idp) { p.metaPaths = map[string]bool{path: true} })
			v := newVerifier(t, Config{Issuer: p.issuer()}, nil)
			tok := k.sign(t, "at+jwt", goodClaims(p.issuer(), time.Now()))
			if _, err := v.Verify(ctx(t), tok, resource); err != nil {
				t.Fatal(err)
			}
			if p.jwksHits.Load() != 1 {
				t.Errorf("JWKS fetched %d times, want 1", p.jwksHits.Load())
			}
		})
	}
}

func TestDiscoveryRefusesIssuerMismatch(t *testing.T) {
	k := newRSA(t, "k1")
	p := newIDP(t, k)
	for _, iss := range []string{"https://evil.example", "SLASH"} {
		p.set(func(p *idp) {
			p.metaIssuer = iss
			if iss == "SLASH" {
				p.metaIssuer = p.srv.URL + "/" // not identical, so not the same issuer
			}
		})
		v := newVerifier(t, Config{Issuer: p.issuer()}, nil)
		_, err := v.Verify(ctx(t), k.sign(t, "", goodClaims(p.issuer(), time.Now())), resource)
		if err == nil || errors.Is(err, auth.ErrInvalidToken) || !strings.Contains(err.Error(), "names issuer") {
			t.Errorf("metadata issuer %q: err = %v, want an issuer mismatch that is not ErrInvalidToken", iss, err)
		}
		if p.jwksHits.Load() != 0 {
			t.Errorf("JWKS fetched despite the mismatch")
		}
	}
}

func TestMetadataURLs(t *testing.T) {
	got := metadataURLs("https://idp.example/tenant/x/")
	want := []string{
		"https://idp.example/.well-known/oauth-authorization-server/tenant/x",
		"https://idp.example/.well-known/openid-configuration/tenant/x",
		"https://idp.example/tenant/x/.well-known/openid-configuration",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
}

func TestGoodToken(t *testing.T) {
	rk, ek := newRSA(t, "rsa"), newEC(t, "ec")
	p := newIDP(t, rk, ek)
	now := time.Now()
	v := newVerifier(t, Config{Issuer: p.issuer(), Audiences: []string{"api://agentpool"}}, nil)
	exp := time.Unix(now.Add(time.Hour).Unix(), 0)

	for _, tc := range []struct {
		name   string
		s      *signer
		typ    string
		claims map[string]any
		res    string
		want   *auth.TokenInfo
	}{
		{"rsa scope", rk, "at+jwt", goodClaims(p.issuer(), now), resource, &auth.TokenInfo{
			UserID: "user-1", Scopes: []string{"read", "write"}, Expiration: exp,
			Extra: map[string]any{"iss": p.issuer(), "client_id": "client-1", "aud": []string{resource}},
		}},
		{"ec scp array azp, typ JWT, API audience", ek, "JWT",
			with(goodClaims(p.issuer(), now), "scope", nil, "scp", []string{"a", "b"}, "client_id", nil, "azp", "client-2",
				"aud", []string{"api://agentpool", "other"}),
			"https://agentpool.example/mcp/agents/coder", &auth.TokenInfo{
				UserID: "user-1", Scopes: []string{"a", "b"}, Expiration: exp,
				Extra: map[string]any{"iss": p.issuer(), "client_id": "client-2", "aud": []string{"api://agentpool", "other"}},
			}},
		{"scp string, no typ, no nbf/iat, no client", rk, "",
			with(goodClaims(p.issuer(), now), "scope", nil, "scp", "x y", "client_id", nil, "nbf", nil, "iat", nil),
			resource, &auth.TokenInfo{
				UserID: "user-1", Scopes: []string{"x", "y"}, Expiration: exp,
				Extra: map[string]any{"iss": p.issuer(), "aud": []string{resource}},
			}},
		{"application/at+jwt, within leeway", rk, "application/at+jwt",
			with(goodClaims(p.issuer(), now), "exp", now.Add(-10*time.Second).Unix(), "nbf", now.Add(10*time.Second).Unix()),
			resource, &auth.TokenInfo{
				UserID: "user-1", Scopes: []string{"read", "write"}, Expiration: time.Unix(now.Add(-10*time.Second).Unix(), 0),
				Extra: map[string]any{"iss": p.issuer(), "client_id": "client-1", "aud": []string{resource}},
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for i := range 2 { // the second from the cache
				got, err := v.Verify(ctx(t), tc.s.sign(t, tc.typ, tc.claims), tc.res)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("call %d: TokenInfo (-want +got):\n%s", i, diff)
				}
				got.Scopes[0] = "mutated" // the cache must not share it
				got.Extra["iss"] = "mutated"
			}
		})
	}
}

// b64 is base64url without padding.
func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func jsonB64(t testing.TB, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b64(b)
}

func TestRejected(t *testing.T) {
	k := newRSA(t, "k1")
	p := newIDP(t, k)
	now := time.Now()
	iss := p.issuer()
	good := goodClaims(iss, now)
	v := newVerifier(t, Config{Issuer: iss, Audiences: []string{"api://agentpool"}}, nil)
	// Load the keys first, so that every case below fails on its own account.
	if _, err := v.Verify(ctx(t), k.sign(t, "", good), resource); err != nil {
		t.Fatal(err)
	}

	other := newRSA(t, "k1") // same kid, different key
	otherKid := newRSA(t, "k2")
	noKid := newRSA(t, "")

	// alg none, and HS256 with the RSA public key as the HMAC secret.
	header := func(alg string) string { return jsonB64(t, map[string]any{"alg": alg, "kid": "k1", "typ": "at+jwt"}) }
	payload := jsonB64(t, good)
	none := header("none") + "." + payload + "."
	pubDER, err := x509.MarshalPKIXPublicKey(k.key.Public())
	if err != nil {
		t.Fatal(err)
	}
	var hsTokens []string
	for _, secret := range [][]byte{pubDER, []byte(fmt.Sprintf("%x", pubDER))} {
		in := header("HS256") + "." + payload
		m := hmac.New(sha256.New, secret)
		m.Write([]byte(in))
		hsTokens = append(hsTokens, in+"."+b64(m.Sum(nil)))
	}
	// A good token's signature on a changed payload.
	goodTok := k.sign(t, "", good)
	parts := strings.Split(goodTok, ".")
	forged := parts[0] + "." + jsonB64(t, with(good, "sub", "admin")) + "." + parts[2]

	cases := []struct {
		name, tok, res, want string
	}{
		{"wrong audience", k.sign(t, "", with(good, "aud", "https://other.example/mcp")), resource, "audience"},
		{"audience of another path", k.sign(t, "", good), resource + "/agents/coder", "audience"},
		{"no audience", k.sign(t, "", with(good, "aud", nil)), resource, "no aud"},
		{"expired", k.sign(t, "", with(good, "exp", now.Add(-time.Minute).Unix())), resource, "expired"},
		{"no exp", k.sign(t, "", with(good, "exp", nil)), resource, "no exp"},
		{"nbf in the future", k.sign(t, "", with(good, "nbf", now.Add(time.Minute).Unix())), resource, "not valid before"},
		{"iat in the future", k.sign(t, "", with(good, "iat", now.Add(time.Minute).Unix())), resource, "issued in the future"},
		{"wrong issuer", k.sign(t, "", with(good, "iss", "https://evil.example")), resource, "issuer"},
		{"issuer with a slash", k.sign(t, "", with(good, "iss", iss+"/")), resource, "issuer"},
		{"no sub", k.sign(t, "", with(good, "sub", nil)), resource, "no sub"},
		{"scope not a string", k.sign(t, "", with(good, "scope", []string{"a"})), resource, "scope"},
		{"id token typ", k.sign(t, "id_token+jwt", good), resource, "typ"},
		{"dpop typ", k.sign(t, "dpop+jwt", good), resource, "typ"},
		{"unknown key, same kid", other.sign(t, "", good), resource, "signature"},
		{"unknown key, new kid", otherKid.sign(t, "", good), resource, "no key with kid"},
		{"unknown key, no kid", noKid.sign(t, "", good), resource, "signature"},
		{"forged payload", forged, resource, "signature"},
		{"alg none", none, resource, "algorithm"},
		{"alg none without the dot", strings.TrimSuffix(none, "."), resource, ""},
		{"HS256 with the public key (DER)", hsTokens[0], resource, "algorithm"},
		{"HS256 with the public key (hex)", hsTokens[1], resource, "algorithm"},
		{"empty", "", resource, "empty"},
		{"garbage", "not a token at all, really", resource, "compact"},
		{"three garbage parts", "aaaaaaaaaaaa.bbbbbbbbbbbbbbb.cccccccccccccc", resource, "malformed"},
		{"dots", "....", resource, ""},
		{"JWE-shaped", "eyJhbGciOiJSU0EtT0FFUCJ9.aaaa.bbbb.cccc.dddd", resource, ""},
		{"bearer prefix left in", "Bearer " + goodTok, resource, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			info, err := v.Verify(ctx(t), tc.tok, tc.res)
			if !errors.Is(err, auth.ErrInvalidToken) {
				t.Fatalf("Verify = %v, %v; want ErrInvalidToken", info, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
			if tc.tok != "" && strings.Contains(err.Error(), tc.tok) {
				t.Errorf("error contains the token: %q", err)
			}
			for _, part := range strings.Split(tc.tok, ".") {
				if len(part) > 16 && strings.Contains(err.Error(), part) {
					t.Errorf("error contains a part of the token: %q", err)
				}
			}
		})
	}
}

func TestNewKeyPickedUp(t *testing.T) {
	k1, k2 := newRSA(t, "k1"), newEC(t, "k2")
	p := newIDP(t, k1)
	clk := newClock()
	v := newVerifier(t, Config{Issuer: p.issuer()}, clk)
	if _, err := v.Verify(ctx(t), k1.sign(t, "", goodClaims(p.issuer(), clk.Now())), resource); err != nil {
		t.Fatal(err)
	}
	p.setKeys(k1, k2) // rotation: k2 is published
	tok2 := k2.sign(t, "", goodClaims(p.issuer(), clk.Now()))
	// Right away, within the refetch limit of the first fetch: not yet.
	if _, err := v.Verify(ctx(t), tok2, resource); !errors.Is(err, auth.ErrInvalidToken) {
		t.Fatalf("within the refetch limit: err = %v, want ErrInvalidToken", err)
	}
	clk.Add(6 * time.Second)
	if _, err := v.Verify(ctx(t), tok2, resource); err != nil {
		t.Fatalf("after the refetch limit: %v", err)
	}
	if n := p.jwksHits.Load(); n != 2 {
		t.Errorf("JWKS fetched %d times, want 2", n)
	}
	if n := p.metaHits.Load(); n != 1 {
		t.Errorf("metadata fetched %d times, want 1 (discovery is done once)", n)
	}
}

func TestRemovedKeyStopsVerifying(t *testing.T) {
	k1, k2 := newRSA(t, "k1"), newRSA(t, "k2")
	p := newIDP(t, k1, k2)
	clk := newClock()
	v := newVerifier(t, Config{Issuer: p.issuer()}, clk)
	claims := with(goodClaims(p.issuer(), clk.Now()), "exp", clk.Now().Add(24*time.Hour).Unix())
	tok1, tok2 := k1.sign(t, "", claims), k2.sign(t, "", claims)
	for _, tok := range []string{tok1, tok2} {
		if _, err := v.Verify(ctx(t), tok, resource); err != nil {
			t.Fatal(err)
		}
	}
	p.setKeys(k2) // k1 removed at the IdP
	clk.Add(9 * time.Minute)
	if _, err := v.Verify(ctx(t), tok1, resource); err != nil {
		t.Fatalf("before the refresh (cached keys): %v", err)
	}
	clk.Add(2 * time.Minute) // past the 10 min refresh
	// The first request past it starts the refresh, checked with the keys held meanwhile.
	if _, err := v.Verify(ctx(t), tok2, resource); err != nil {
		t.Fatalf("the request starting the refresh: %v", err)
	}
	refreshed(v)
	if _, err := v.Verify(ctx(t), tok1, resource); !errors.Is(err, auth.ErrInvalidToken) {
		t.Fatalf("after the refresh: err = %v, want ErrInvalidToken", err)
	}
	if _, err := v.Verify(ctx(t), tok2, resource); err != nil {
		t.Fatalf("the remaining key: %v", err)
	}
	// A fresh token by the removed key, naming its kid, is refused too (and refetching for
	// it is rate-limited).
	clk.Add(6 * time.Second)
	if _, err := v.Verify(ctx(t), k1.sign(t, "", goodClaims(p.issuer(), clk.Now())), resource); !errors.Is(err, auth.ErrInvalidToken) {
		t.Fatalf("new token by the removed key: err = %v", err)
	}
}

func TestCacheControlMaxAge(t *testing.T) {
	for _, tc := range []struct {
		h    string
		want time.Duration
	}{
		{"", defaultKeysTTL},
		{"public, max-age=300", 5 * time.Minute},
		{"max-age=1", minKeysTTL},
		{"Max-Age=86400, must-revalidate", maxKeysTTL},
		{"no-cache", defaultKeysTTL},
		{"max-age=x", defaultKeysTTL},
	} {
		h := http.Header{}
		if tc.h != "" {
			h.Set("Cache-Control", tc.h)
		}
		if got := ttlOf(h); got != tc.want {
			t.Errorf("ttlOf(%q) = %v, want %v", tc.h, got, tc.want)
		}
	}

	k1, k2 := newRSA(t, "k1"), newRSA(t, "k2")
	p := newIDP(t, k1, k2)
	p.set(func(p *idp) { p.cacheHeader = "max-age=120" })
	clk := newClock()
	v := newVerifier(t, Config{Issuer: p.issuer()}, clk)
	tok1 := k1.sign(t, "", goodClaims(p.issuer(), clk.Now()))
	if _, err := v.Verify(ctx(t), tok1, resource); err != nil {
		t.Fatal(err)
	}
	p.setKeys(k2)
	clk.Add(121 * time.Second)
	v.Verify(ctx(t), tok1, resource) // starts the refresh, checked with the keys held
	refreshed(v)
	if _, err := v.Verify(ctx(t), tok1, resource); !errors.Is(err, auth.ErrInvalidToken) {
		t.Fatalf("after max-age: err = %v, want ErrInvalidToken", err)
	}
}

func TestKidFloodFetchesLittle(t *testing.T) {
	k := newRSA(t, "k1")
	p := newIDP(t, k)
	clk := newClock() // stopped: 1000 checks can outlast the fetch interval on a loaded machine
	v := newVerifier(t, Config{Issuer: p.issuer()}, clk)
	if _, err := v.Verify(ctx(t), k.sign(t, "", goodClaims(p.issuer(), clk.Now())), resource); err != nil {
		t.Fatal(err)
	}
	p.jwksHits.Store(0)
	v.mu.Lock()
	v.lastAttempt = time.Time{} // as if the first fetch were long ago: one refetch is allowed
	v.mu.Unlock()

	attacker := newRSA(t, "")
	var wg sync.WaitGroup
	for g := range 20 {
		wg.Go(func() {
			for i := range 50 {
				s := &signer{key: attacker.key, kid: fmt.Sprintf("random-%d-%d", g, i), alg: jose.RS256}
				if _, err := v.Verify(ctx(t), s.sign(t, "", goodClaims(p.issuer(), clk.Now())), resource); !errors.Is(err, auth.ErrInvalidToken) {
					t.Errorf("random kid: err = %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	if n := p.jwksHits.Load(); n > 2 {
		t.Errorf("1000 random kids made %d JWKS fetches, want at most 2", n)
	}
	t.Logf("JWKS fetches for 1000 random kids: %d", p.jwksHits.Load())
}

func TestIdPDown(t *testing.T) {
	k := newRSA(t, "k1")
	p := newIDP(t, k)
	p.set(func(p *idp) { p.down = true })
	clk := newClock()
	v := newVerifier(t, Config{Issuer: p.issuer()}, clk)
	tok := k.sign(t, "", goodClaims(p.issuer(), clk.Now()))
	for range 10 {
		_, err := v.Verify(ctx(t), tok, resource)
		if err == nil || errors.Is(err, auth.ErrInvalidToken) {
			t.Fatalf("IdP down: err = %v, want an error that is not ErrInvalidToken", err)
		}
		if strings.Contains(err.Error(), tok) {
			t.Errorf("error contains the token")
		}
	}
	if n := p.metaHits.Load(); n != 2 { // the two well-known paths, once
		t.Errorf("10 calls with the IdP down made %d metadata requests, want 2", n)
	}
	p.set(func(p *idp) { p.down = false })
	if _, err := v.Verify(ctx(t), tok, resource); err == nil {
		t.Fatal("retried before the interval")
	}
	clk.Add(6 * time.Second)
	if _, err := v.Verify(ctx(t), tok, resource); err != nil {
		t.Fatalf("IdP back: %v", err)
	}

	// Unreachable: nothing listening.
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	v = newVerifier(t, Config{Issuer: dead.URL}, nil)
	if _, err := v.Verify(ctx(t), tok, resource); err == nil || errors.Is(err, auth.ErrInvalidToken) {
		t.Fatalf("IdP unreachable: err = %v", err)
	}
}

func TestKeysKeptWhenRefreshFails(t *testing.T) {
	k := newRSA(t, "k1")
	p, clk, v, claims := loadedVerifier(t, k)
	p.set(func(p *idp) { p.down = true })
	clk.Add(11 * time.Minute)
	if _, err := v.Verify(ctx(t), k.sign(t, "", with(claims, "sub", "user-2")), resource); err != nil {
		t.Fatalf("refresh failed, old keys should be used: %v", err)
	}
}

func TestJWKSURLSkipsDiscovery(t *testing.T) {
	k := newRSA(t, "k1")
	p := newIDP(t, k)
	p.set(func(p *idp) { p.metaPaths = nil })
	v := newVerifier(t, Config{Issuer: "https://idp.example", JWKSURL: p.srv.URL + "/jwks"}, nil)
	if _, err := v.Verify(ctx(t), k.sign(t, "", goodClaims("https://idp.example", time.Now())), resource); err != nil {
		t.Fatal(err)
	}
	if p.metaHits.Load() != 0 {
		t.Error("metadata fetched despite JWKSURL")
	}
}

func TestCachedTokenExpires(t *testing.T) {
	k := newRSA(t, "k1")
	p := newIDP(t, k)
	clk := newClock()
	v := newVerifier(t, Config{Issuer: p.issuer()}, clk)
	tok := k.sign(t, "", with(goodClaims(p.issuer(), clk.Now()), "exp", clk.Now().Add(time.Minute).Unix()))
	if _, err := v.Verify(ctx(t), tok, resource); err != nil {
		t.Fatal(err)
	}
	clk.Add(2 * time.Minute)
	if _, err := v.Verify(ctx(t), tok, resource); !errors.Is(err, auth.ErrInvalidToken) {
		t.Fatalf("expired cached token: err = %v", err)
	}
}

func TestCacheBounded(t *testing.T) {
	k := newRSA(t, "k1")
	p := newIDP(t, k)
	v := newVerifier(t, Config{Issuer: p.issuer()}, nil)
	tok := k.sign(t, "", goodClaims(p.issuer(), time.Now()))
	if _, err := v.Verify(ctx(t), tok, resource); err != nil {
		t.Fatal(err)
	}
	info, _ := v.Verify(ctx(t), tok, resource)
	for i := range maxCached + 10 {
		v.remember(cacheKey(fmt.Sprint(i), resource), info, v.keysGen)
	}
	if n := len(v.cache); n > maxCached {
		t.Errorf("cache has %d entries, more than %d", n, maxCached)
	}
}

func TestConcurrentVerify(t *testing.T) {
	k := newRSA(t, "k1")
	p := newIDP(t, k)
	v := newVerifier(t, Config{Issuer: p.issuer()}, nil)
	tok := k.sign(t, "", goodClaims(p.issuer(), time.Now()))
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for range 20 {
				if _, err := v.Verify(ctx(t), tok, resource); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if n := p.jwksHits.Load(); n != 1 {
		t.Errorf("concurrent first calls made %d JWKS fetches, want 1 shared", n)
	}
}

func TestRedirectToPlainHTTPRefused(t *testing.T) {
	k := newRSA(t, "k1")
	p := newIDP(t, k)
	redir := httptest.NewServer(http.RedirectHandler("http://idp.invalid/jwks", http.StatusFound))
	t.Cleanup(redir.Close)
	v := newVerifier(t, Config{Issuer: p.issuer(), JWKSURL: redir.URL + "/jwks"}, nil)
	_, err := v.Verify(ctx(t), k.sign(t, "", goodClaims(p.issuer(), time.Now())), resource)
	if err == nil || errors.Is(err, auth.ErrInvalidToken) || !strings.Contains(err.Error(), "redirect refused") {
		t.Fatalf("err = %v, want a refused redirect", err)
	}
}

// TestNoTokenInLogs runs rejections and IdP failures with a debug logger and looks for the
// tokens in what it wrote.
func TestNoTokenInLogs(t *testing.T) {
	k := newRSA(t, "k1")
	other := newRSA(t, "k2")
	p := newIDP(t, k)
	var buf strings.Builder
	var mu sync.Mutex
	log := slog.New(slog.NewTextHandler(&lockedWriter{w: &buf, mu: &mu}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	clk := newClock()
	v := newVerifier(t, Config{Issuer: p.issuer(), Logger: log}, clk)
	good := goodClaims(p.issuer(), clk.Now())
	toks := []string{
		k.sign(t, "", good),
		k.sign(t, "", with(good, "aud", "x")),
		other.sign(t, "", good),
		k.sign(t, "weird", good),
	}
	for _, tok := range toks {
		v.Verify(ctx(t), tok, resource)
	}
	p.set(func(p *idp) { p.down = true })
	clk.Add(11 * time.Minute)
	for _, tok := range toks {
		v.Verify(ctx(t), tok, resource)
	}
	mu.Lock()
	defer mu.Unlock()
	if buf.Len() == 0 {
		t.Fatal("nothing logged")
	}
	for _, tok := range toks {
		for _, part := range strings.Split(tok, ".") {
			if strings.Contains(buf.String(), part) {
				t.Errorf("the log contains a part of a token:\n%s", buf.String())
			}
		}
	}
}

type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// TestCacheNotFilledWithOldKeys: a token checked with keys that a concurrent refresh then
// replaces must not enter the cache after that refresh emptied it, or a removed key's token
// would be accepted from the cache until its exp.
func TestCacheNotFilledWithOldKeys(t *testing.T) {
	k1, k2 := newRSA(t, "k1"), newRSA(t, "k2")
	p := newIDP(t, k1, k2)
	clk := newClock()
	v := newVerifier(t, Config{Issuer: p.issuer()}, clk)
	claims := with(goodClaims(p.issuer(), clk.Now()), "exp", clk.Now().Add(24*time.Hour).Unix())
	tok1, tok2 := k1.sign(t, "", claims), k2.sign(t, "", with(claims, "sub", "user-2"))
	if _, err := v.Verify(ctx(t), tok2, resource); err != nil { // loads the keys
		t.Fatal(err)
	}
	p.setKeys(k2) // k1 removed at the IdP

	// While tok1 is being checked (its signature verified with the old keys, its claims read),
	// the keys come due and another request refreshes them.
	var calls int
	v.now = func() time.Time {
		calls++
		if calls == 3 { // Verify, keysFor, then checkClaims: the keys are in hand
			v.now = clk.Now
			clk.Add(11 * time.Minute)
			if _, err := v.Verify(ctx(t), tok2, resource); err != nil {
				t.Errorf("refresh: %v", err)
			}
			refreshed(v)
		}
		return clk.Now()
	}
	v.Verify(ctx(t), tok1, resource) // whatever it says, checked as it was with the old keys
	v.now = clk.Now
	if _, err := v.Verify(ctx(t), tok1, resource); !errors.Is(err, auth.ErrInvalidToken) {
		t.Fatalf("token of the removed key after the refresh: err = %v, want ErrInvalidToken", err)
	}
}

// TestJWKSWithoutKeysIsNotAKeySet: a JWKS document without its required "keys" member (RFC
// 7517 §5) is the IdP answering nonsense, not the IdP withdrawing every key: the keys held
// are kept, as when a refresh fails.
func TestJWKSWithoutKeysIsNotAKeySet(t *testing.T) {
	for _, body := range []string{`{}`, `null`, `{"keys":null}`, `{"error":"not_found"}`} {
		k := newRSA(t, "")
		p, clk, v, claims := loadedVerifier(t, k)
		p.set(func(p *idp) { p.jwksBody = body })
		clk.Add(11 * time.Minute)
		if _, err := v.Verify(ctx(t), k.sign(t, "", with(claims, "sub", "user-2")), resource); err != nil {
			t.Errorf("JWKS %s: %v, want the old keys kept", body, err)
		}

		// With no keys held, it is the IdP's failure (503), not the token's (401).
		v = newVerifier(t, Config{Issuer: p.issuer()}, clk)
		if _, err := v.Verify(ctx(t), k.sign(t, "", claims), resource); err == nil || errors.Is(err, auth.ErrInvalidToken) {
			t.Errorf("JWKS %s, no keys held: err = %v, want an error that is not ErrInvalidToken", body, err)
		}
	}
}

// TestJWKSURLWithQuery: unlike an issuer (RFC 8414 §2), a jwks_uri may have a query, as
// Azure AD B2C's do (.../discovery/v2.0/keys?p=b2c_1_signin), configured or discovered.
func TestJWKSURLWithQuery(t *testing.T) {
	if _, err := New(Config{Issuer: "https://idp.example?x=1"}); err == nil {
		t.Error("an issuer with a query accepted")
	}
	k := newRSA(t, "k1")
	p := newIDP(t, k)
	v := newVerifier(t, Config{Issuer: p.issuer(), JWKSURL: p.srv.URL + "/jwks?p=b2c_1_signin"}, nil)
	if _, err := v.Verify(ctx(t), k.sign(t, "", goodClaims(p.issuer(), time.Now())), resource); err != nil {
		t.Errorf("configured: %v", err)
	}
	p.set(func(p *idp) { p.jwksURI = p.srv.URL + "/jwks?p=b2c_1_signin" })
	v = newVerifier(t, Config{Issuer: p.issuer()}, nil)
	if _, err := v.Verify(ctx(t), k.sign(t, "", goodClaims(p.issuer(), time.Now())), resource); err != nil {
		t.Errorf("discovered: %v", err)
	}
}

// TestSlowRefreshDoesNotStallRequests: while a refresh of keys that are due hangs on a slow
// IdP, the other requests are checked with the keys held instead of waiting for it (up to
// the fetch timeout, again after every failed attempt).
func TestSlowRefreshDoesNotStallRequests(t *testing.T) {
	k := newRSA(t, "k1")
	p, clk, v, claims := loadedVerifier(t, k)
	hang := make(chan struct{})
	p.hang.Store(&hang)
	clk.Add(11 * time.Minute) // the keys are due
	done := make(chan struct{})
	go func() {
		defer close(done)
		v.Verify(ctx(t), k.sign(t, "", with(claims, "sub", "user-2")), resource) // refreshes
	}()
	select {
	case <-p.hung: // the refresh is under way
	case <-time.After(20 * time.Second):
		t.Fatal("the due keys were not refreshed")
	}
	c, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err := v.Verify(c, k.sign(t, "", with(claims, "sub", "user-3")), resource)
	close(hang)
	<-done
	if err != nil {
		t.Fatalf("during a slow refresh: %v, want the token checked with the keys held", err)
	}
}

// refreshed waits for the fetch of keys under way, if any, to end.
func refreshed(v *Verifier) {
	v.mu.Lock()
	ch := v.inflight
	v.mu.Unlock()
	if ch != nil {
		<-ch
	}
}

// TestIdPFailingIsNotTheToken: once the IdP fails (500) after the keys were loaded, a token
// of a key the keys held lack (a rotation the IdP could not tell about) is the IdP's failure,
// not the token's: an error that is not ErrInvalidToken (503 at the gateway), never 401.
func TestIdPFailingIsNotTheToken(t *testing.T) {
	k1, k2 := newRSA(t, "k1"), newRSA(t, "k2")
	p, clk, v, claims := loadedVerifier(t, k1)
	p.set(func(p *idp) { p.down = true })
	clk.Add(6 * time.Second) // past the refetch limit: the kid makes it ask
	tok2 := k2.sign(t, "", with(claims, "sub", "user-2"))
	for i := range 3 { // the failed fetch, then within the refetch limit after it
		_, err := v.Verify(ctx(t), tok2, resource)
		if err == nil || errors.Is(err, auth.ErrInvalidToken) {
			t.Fatalf("attempt %d, IdP failing: err = %v, want an error that is not ErrInvalidToken", i, err)
		}
	}
	if _, err := v.Verify(ctx(t), k1.sign(t, "", with(claims, "sub", "user-3")), resource); err != nil {
		t.Errorf("a token of a key held, IdP failing: %v", err)
	}
	p.set(func(p *idp) { p.down = false; p.keys = append(p.keys, k2.public()) })
	clk.Add(6 * time.Second)
	if _, err := v.Verify(ctx(t), tok2, resource); err != nil {
		t.Errorf("IdP back with the new key: %v", err)
	}
}

// TestDueKeysNeverHoldACachedKid: when the keys held are due for a refresh and the IdP hangs,
// a token whose kid they hold is checked with them at once: the refresh runs on its own,
// and the request returns while it is still under way.
func TestDueKeysNeverHoldACachedKid(t *testing.T) {
	k := newRSA(t, "k1")
	p, clk, v, claims := loadedVerifier(t, k)
	hang := make(chan struct{})
	p.hang.Store(&hang)
	defer close(hang)
	clk.Add(11 * time.Minute) // the keys are due
	if _, err := v.Verify(ctx(t), k.sign(t, "", with(claims, "sub", "user-2")), resource); err != nil {
		t.Fatalf("due keys, IdP hanging: %v, want the token checked with the keys held", err)
	}
	v.mu.Lock()
	refreshing := v.inflight != nil
	v.mu.Unlock()
	if !refreshing {
		t.Error("the request returned after the refresh ended, want it to return while the refresh hangs")
	}
}

// TestKeyFetchBounded: a fetch of keys for a kid the keys held lack gives up after
// fetchTimeout (3 s) when the IdP hangs; the request gets an error that is not
// ErrInvalidToken.
func TestKeyFetchBounded(t *testing.T) {
	if fetchTimeout > 3*time.Second {
		t.Errorf("fetchTimeout = %v, want at most 3 s", fetchTimeout)
	}
	k1, k2 := newRSA(t, "k1"), newRSA(t, "k2")
	p, clk, v, claims := loadedVerifier(t, k1)
	hang := make(chan struct{})
	p.hang.Store(&hang)
	defer close(hang)
	clk.Add(6 * time.Second)
	done := make(chan error, 1)
	go func() {
		_, err := v.Verify(context.Background(), k2.sign(t, "", with(claims, "sub", "user-2")), resource)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || errors.Is(err, auth.ErrInvalidToken) {
			t.Errorf("IdP hanging: err = %v, want an error that is not ErrInvalidToken", err)
		}
	case <-time.After(8 * time.Second): // the 3 s bound, generously
		t.Fatal("a fetch on a hanging IdP held the request past 8 s")
	}
}

// TestIdPFailingForgedHeldKid: while the IdP fails, a token naming a kid the keys held have
// but signed by another key is the token's failure (ErrInvalidToken, 401 at the gateway):
// the key it names is held, so no stale keys explain it.
func TestIdPFailingForgedHeldKid(t *testing.T) {
	k1, k2 := newRSA(t, "k1"), newRSA(t, "k2")
	p, clk, v, claims := loadedVerifier(t, k1)
	p.set(func(p *idp) { p.down = true })
	clk.Add(6 * time.Second)
	if _, err := v.Verify(ctx(t), k2.sign(t, "", with(claims, "sub", "user-2")), resource); err == nil || errors.Is(err, auth.ErrInvalidToken) {
		t.Fatalf("a token of a key not held, IdP failing: err = %v, want the IdP's failure", err)
	}
	forged := newRSA(t, "k1") // names k1, signed by another key
	_, err := v.Verify(ctx(t), forged.sign(t, "", with(claims, "sub", "user-3")), resource)
	if !errors.Is(err, auth.ErrInvalidToken) {
		t.Errorf("a token naming a held kid with a bad signature, IdP failing: err = %v, want ErrInvalidToken", err)
	}
}

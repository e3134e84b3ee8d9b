package bearer

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

const resource = "https://agentpool.example/mcp"

// idp is a fake authorization server on 127.0.0.1: metadata at one or both well-known paths
// and a JWKS whose keys a test changes.
type idp struct {
	srv *httptest.Server

	mu          sync.Mutex
	keys        []jose.JSONWebKey // public keys served
	metaPaths   map[string]bool   // well-known paths that answer
	metaIssuer  string            // "" means the server's own URL
	down        bool              // every request gets 500
	cacheHeader string
	jwksBody    string // when set, served as the JWKS instead of keys
	jwksURI     string // when set, the metadata's jwks_uri

	jwksHits atomic.Int32
	metaHits atomic.Int32
	hang     atomic.Pointer[chan struct{}] // when set, JWKS requests wait for it to close
	hung     chan struct{}                 // receives when a JWKS request starts waiting for hang
}

func newIDP(t testing.TB, keys ...*signer) *idp {
	t.Helper()
	p := &idp{hung: make(chan struct{}, 16), metaPaths: map[string]bool{
		"/.well-known/oauth-authorization-server": true,
		"/.well-known/openid-configuration":       true,
	}}
	for _, k := range keys {
		p.keys = append(p.keys, k.public())
	}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *idp) issuer() string { return p.srv.URL }

func (p *idp) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/jwks" {
		if h := p.hang.Load(); h != nil {
			p.jwksHits.Add(1)
			select {
			case p.hung <- struct{}{}:
			default:
			}
			<-*h
			http.Error(w, "timed out", http.StatusGatewayTimeout)
			return
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if r.URL.Path == "/jwks" {
		p.jwksHits.Add(1)
	} else {
		p.metaHits.Add(1)
	}
	if p.down {
		http.Error(w, "down", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.URL.Path == "/jwks":
		if p.cacheHeader != "" {
			w.Header().Set("Cache-Control", p.cacheHeader)
		}
		if p.jwksBody != "" {
			w.Write([]byte(p.jwksBody))
			return
		}
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: p.keys})
	case p.metaPaths[r.URL.Path]:
		iss := p.metaIssuer
		if iss == "" {
			iss = p.srv.URL
		}
		jwks := p.jwksURI
		if jwks == "" {
			jwks = p.srv.URL + "/jwks"
		}
		json.NewEncoder(w).Encode(map[string]any{
			"issuer":                 iss,
			"jwks_uri":               jwks,
			"authorization_endpoint": p.srv.URL + "/authorize",
			"token_endpoint":         p.srv.URL + "/token",
		})
	default:
		http.NotFound(w, r)
	}
}

func (p *idp) setKeys(keys ...*signer) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.keys = nil
	for _, k := range keys {
		p.keys = append(p.keys, k.public())
	}
}

func (p *idp) set(f func(p *idp)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f(p)
}

// signer is a private key with its kid and algorithm.
type signer struct {
	key crypto.Signer
	kid string
	alg jose.SignatureAlgorithm
}

func newRSA(t testing.TB, kid string) *signer {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return &signer{key: k, kid: kid, alg: jose.RS256}
}

func newEC(t testing.TB, kid string) *signer {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return &signer{key: k, kid: kid, alg: jose.ES256}
}

func (s *signer) public() jose.JSONWebKey {
	return jose.JSONWebKey{Key: s.key.Public(), KeyID: s.kid, Algorithm: string(s.alg), Use: "sig"}
}

// sign returns a JWT with claims, its header carrying s.kid (when not "") and typ (when not "").
func (s *signer) sign(t testing.TB, typ string, claims map[string]any) string {
	t.Helper()
	opts := &jose.SignerOptions{}
	if typ != "" {
		opts = opts.WithType(jose.ContentType(typ))
	}
	if s.kid != "" {
		opts = opts.WithHeader(jose.HeaderKey("kid"), s.kid)
	}
	sg, err := jose.NewSigner(jose.SigningKey{Algorithm: s.alg, Key: s.key}, opts)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.Signed(sg).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// clock is a settable time for a Verifier.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Now()} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// goodClaims are claims that verify for iss at now, with resource as audience.
func goodClaims(iss string, now time.Time) map[string]any {
	return map[string]any{
		"iss":       iss,
		"sub":       "user-1",
		"aud":       resource,
		"exp":       now.Add(time.Hour).Unix(),
		"iat":       now.Unix(),
		"nbf":       now.Unix(),
		"scope":     "read write",
		"client_id": "client-1",
	}
}

// with returns a copy of m with kv's pairs set (a nil value deletes).
func with(m map[string]any, kv ...any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(out, kv[i].(string))
		} else {
			out[kv[i].(string)] = kv[i+1]
		}
	}
	return out
}

// newVerifier returns a Verifier for p, on clk when it is not nil.
func newVerifier(t testing.TB, cfg Config, clk *clock) *Verifier {
	t.Helper()
	v, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if clk != nil {
		v.now = clk.Now
	}
	return v
}

func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

// loadedVerifier returns a verifier on a fake clock over an IdP holding k, the keys already
// fetched by a first token of k, and claims good for a day: past the keys' next refresh.
func loadedVerifier(t *testing.T, k *signer) (*idp, *clock, *Verifier, map[string]any) {
	t.Helper()
	p := newIDP(t, k)
	clk := newClock()
	v := newVerifier(t, Config{Issuer: p.issuer()}, clk)
	claims := with(goodClaims(p.issuer(), clk.Now()), "exp", clk.Now().Add(24*time.Hour).Unix())
	if _, err := v.Verify(ctx(t), k.sign(t, "", claims), resource); err != nil {
		t.Fatal(err)
	}
	return p, clk, v, claims
}

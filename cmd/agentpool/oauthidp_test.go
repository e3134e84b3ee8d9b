package main

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/testwait"
)

// fakeIdP is an issuer on 127.0.0.1 serving RFC 8414 metadata and a JWKS of the keys it was
// given, or 500 to everything once failing is set.
type fakeIdP struct {
	srv     *httptest.Server
	failing atomic.Bool
	mu      sync.Mutex
	keys    map[string]*rsa.PrivateKey // by kid
}

func newFakeIdP(t *testing.T, kids ...string) *fakeIdP {
	t.Helper()
	p := &fakeIdP{keys: map[string]*rsa.PrivateKey{}}
	for _, kid := range kids {
		p.addKey(t, kid)
	}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p.failing.Load() {
			http.Error(w, "internal error", http.StatusInternalServerError)
			return
		}
		b64 := base64.RawURLEncoding.EncodeToString
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/.well-known/oauth-authorization-server":
			json.NewEncoder(w).Encode(map[string]any{"issuer": p.srv.URL, "jwks_uri": p.srv.URL + "/jwks"})
		case "/jwks":
			p.mu.Lock()
			var keys []map[string]string
			for kid, k := range p.keys {
				keys = append(keys, map[string]string{"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256",
					"n": b64(k.N.Bytes()), "e": b64(big.NewInt(int64(k.E)).Bytes())})
			}
			p.mu.Unlock()
			json.NewEncoder(w).Encode(map[string]any{"keys": keys})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *fakeIdP) addKey(t *testing.T, kid string) {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	p.keys[kid] = k
	p.mu.Unlock()
}

// token is an access token for resource, of sub, signed by the key kid (which the JWKS may or
// may not list).
func (p *fakeIdP) token(t *testing.T, kid, resource, sub string) string {
	t.Helper()
	p.mu.Lock()
	key := p.keys[kid]
	p.mu.Unlock()
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	now := time.Now().Unix()
	signing := enc(map[string]any{"alg": "RS256", "typ": "at+jwt", "kid": kid}) + "." +
		enc(map[string]any{"iss": p.srv.URL, "aud": resource, "sub": sub, "scope": "mcp", "iat": now, "exp": now + 600, "client_id": "x"})
	sum := sha256.Sum256([]byte(signing))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	return signing + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// TestServeOAuthIdPFailing: serve's identity provider fails (500) after serve loaded its keys,
// and a client comes with a token of a key the provider has published since: serve answers
// 503 with Retry-After (the provider's failure, try again), never 401 (which tells the client
// its token is bad), while a token of a key it holds still passes.
func TestServeOAuthIdPFailing(t *testing.T) {
	t.Parallel()
	p := newFakeIdP(t, "k1")
	cfg := filepath.Join(t.TempDir(), "agentpool.yaml")
	writeFile(t, cfg, "server:\n  auth:\n    issuer: "+p.srv.URL+"\n    scopes: [mcp]\n")
	_, url, log := startServeIn(t, "", []string{"HOME=" + t.TempDir()}, "--no-default-roots", "--config", cfg, "serve", "--http", "127.0.0.1:0")
	if status, _ := initStatus(t, url, p.token(t, "k1", url, "alice")); status != http.StatusOK {
		t.Fatalf("a good token, provider up: %d\n%s", status, log)
	}
	p.addKey(t, "k2") // published: the provider would list it, could it answer
	p.failing.Store(true)
	tok2 := p.token(t, "k2", url, "bob")
	var retryAfter string
	testwait.For(t, "a token of the new key to get 503 once serve asks the failing provider", func() bool {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+tok2)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Fatal("a token no key held verifies passed")
		}
		retryAfter = resp.Header.Get("Retry-After")
		return resp.StatusCode == http.StatusServiceUnavailable
	})
	if retryAfter == "" {
		t.Error("503 without Retry-After")
	}
	if status, _ := initStatus(t, url, p.token(t, "k1", url, "carol")); status != http.StatusOK {
		t.Errorf("a token of a key held, provider failing: %d", status)
	}
}

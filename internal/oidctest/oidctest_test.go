package oidctest

import (
	"bytes"
	"context"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"go.uber.org/goleak"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

const resource = "http://127.0.0.1:1/mcp"

// jwt is a decoded JWT access token.
type jwt struct {
	Header struct{ Alg, Kid, Typ string }
	Claims struct {
		Iss, Sub, Scope string
		Aud             any // a string from oidc-provider
		Exp, Iat        int64
	}
	signed, sig []byte
}

func decode(t *testing.T, tok string) *jwt {
	t.Helper()
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		t.Fatalf("%q is not a JWT", tok)
	}
	var j jwt
	for i, v := range []any{&j.Header, &j.Claims} {
		b, err := base64.RawURLEncoding.DecodeString(parts[i])
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
	}
	j.signed = []byte(parts[0] + "." + parts[1])
	j.sig, _ = base64.RawURLEncoding.DecodeString(parts[2])
	return &j
}

// jwks returns the provider's signing keys by kid, in the JWKS's order.
func jwks(t *testing.T, p *Provider) ([]string, map[string]*rsa.PublicKey) {
	t.Helper()
	var set struct {
		Keys []struct{ Kid, Kty, N, E string }
	}
	if err := p.getJSON(t.Context(), p.meta.JWKSURI, &set); err != nil {
		t.Fatal(err)
	}
	var kids []string
	keys := map[string]*rsa.PublicKey{}
	for _, k := range set.Keys {
		n, err1 := base64.RawURLEncoding.DecodeString(k.N)
		e, err2 := base64.RawURLEncoding.DecodeString(k.E)
		if k.Kty != "RSA" || err1 != nil || err2 != nil {
			t.Fatalf("JWKS key %+v", k)
		}
		kids = append(kids, k.Kid)
		keys[k.Kid] = &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
	}
	return kids, keys
}

// verifies reports whether the provider's JWKS verifies j's signature.
func verifies(t *testing.T, p *Provider, j *jwt) bool {
	t.Helper()
	_, keys := jwks(t, p)
	key := keys[j.Header.Kid]
	d := sha256.Sum256(j.signed)
	return key != nil && j.Header.Alg == "RS256" && rsa.VerifyPKCS1v15(key, crypto.SHA256, d[:], j.sig) == nil
}

func TestDiscovery(t *testing.T) {
	p := Start(t, nil)
	var meta map[string]any
	if err := p.getJSON(t.Context(), p.Issuer+"/.well-known/openid-configuration", &meta); err != nil {
		t.Fatal(err)
	}
	if meta["issuer"] != p.Issuer || meta["jwks_uri"] != p.Issuer+"/jwks" || meta["registration_endpoint"] == nil {
		t.Errorf("discovery: issuer %v jwks_uri %v registration_endpoint %v; want issuer %s", meta["issuer"], meta["jwks_uri"], meta["registration_endpoint"], p.Issuer)
	}
	if !strings.HasPrefix(p.Issuer, "http://127.0.0.1:") {
		t.Errorf("issuer %s is not on 127.0.0.1", p.Issuer)
	}
}

func TestUserToken(t *testing.T) {
	p := Start(t, nil)
	for _, user := range []string{"alice", "bob"} {
		j := decode(t, p.UserToken(t, user, resource, "mcp"))
		c := j.Claims
		if c.Aud != resource || c.Sub != user || c.Iss != p.Issuer || c.Scope != "mcp" || c.Exp-c.Iat != 300 {
			t.Errorf("%s's token: %+v; want aud %s, sub %s, scope mcp, 300s", user, c, resource, user)
		}
		if j.Header.Typ != "at+jwt" || !verifies(t, p, j) {
			t.Errorf("%s's token: header %+v, or its signature does not verify", user, j.Header)
		}
	}
	// Any agent:NAME, and OIDC scopes, but no scope the resource does not know.
	j := decode(t, p.UserToken(t, "carol", "https://example.com/other", "openid", "offline_access", "mcp", "agent:reviewer", "unknown"))
	if c := j.Claims; c.Aud != "https://example.com/other" || c.Sub != "carol" || c.Scope != "mcp agent:reviewer" {
		t.Errorf("carol's token: %+v; want scope mcp agent:reviewer", c)
	}
}

func TestTokenTTL(t *testing.T) {
	p := Start(t, &Options{TokenTTL: 2 * time.Second})
	if c := decode(t, p.UserToken(t, "alice", resource, "mcp")).Claims; c.Exp-c.Iat != 2 {
		t.Errorf("token lives %ds, want 2", c.Exp-c.Iat)
	}
}

func TestRotate(t *testing.T) {
	p := Start(t, nil)
	old := decode(t, p.UserToken(t, "alice", resource, "mcp"))
	if kids, _ := jwks(t, p); !slices.Equal(kids, []string{old.Header.Kid}) {
		t.Fatalf("JWKS %v, token kid %s", kids, old.Header.Kid)
	}

	p.Rotate(t, false)
	kids, _ := jwks(t, p)
	cur := decode(t, p.UserToken(t, "alice", resource, "mcp"))
	if len(kids) != 2 || kids[1] != old.Header.Kid || cur.Header.Kid != kids[0] {
		t.Errorf("after Rotate: JWKS %v, new token kid %s, old %s", kids, cur.Header.Kid, old.Header.Kid)
	}
	if !verifies(t, p, old) || !verifies(t, p, cur) {
		t.Error("after Rotate, the old or the new token does not verify")
	}

	p.Rotate(t, true)
	if kids, _ := jwks(t, p); !slices.Equal(kids, []string{cur.Header.Kid}) {
		t.Errorf("after Rotate(drop): JWKS %v, want only %s", kids, cur.Header.Kid)
	}
	if verifies(t, p, old) || !verifies(t, p, cur) {
		t.Error("after Rotate(drop), the old token verifies or the current one does not")
	}
	if j := decode(t, p.UserToken(t, "bob", resource, "mcp")); j.Header.Kid != cur.Header.Kid {
		t.Errorf("after Rotate(drop), a token's kid is %s, want %s", j.Header.Kid, cur.Header.Kid)
	}
}

// TestGoSDKClient runs the go-sdk's authorization code handler against the provider: dynamic
// client registration, FollowRedirect as the user, the code exchange for the resource, and a
// refresh (offline_access).
func TestGoSDKClient(t *testing.T) {
	p := Start(t, &Options{TokenTTL: 2 * time.Second})
	// A protected resource's metadata (RFC 9728), all of the resource the handler needs.
	var res *httptest.Server
	res = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"resource": res.URL + "/mcp", "authorization_servers": []string{p.Issuer}, "scopes_supported": []string{"mcp"}})
	}))
	defer res.Close()
	hc := &http.Client{Transport: p.transport}

	h, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs: []string{"http://127.0.0.1:1/callback"},
			GrantTypes:   []string{"authorization_code", "refresh_token"},
			ClientName:   "go-sdk",
		}},
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			return p.FollowRedirect(ctx, args, "bob")
		},
		RequestRefreshToken: true,
		Client:              hc,
	})
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodPost, res.URL+"/mcp", nil)
	challenge := &http.Response{StatusCode: http.StatusUnauthorized, Header: http.Header{
		"Www-Authenticate": {fmt.Sprintf(`Bearer resource_metadata=%q`, res.URL+"/.well-known/oauth-protected-resource/mcp")},
	}, Body: http.NoBody}
	if err := h.Authorize(t.Context(), req, challenge); err != nil {
		t.Fatalf("Authorize: %v", err)
	}
	ts, err := h.TokenSource(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	first, err := ts.Token()
	if err != nil {
		t.Fatal(err)
	}
	c := decode(t, first.AccessToken).Claims
	if c.Aud != res.URL+"/mcp" || c.Sub != "bob" || c.Scope != "mcp" || first.RefreshToken == "" {
		t.Fatalf("go-sdk's token: %+v, refresh token %q", c, first.RefreshToken)
	}
	// expires_in 2 is within oauth2's 10s expiry delta: the next Token refreshes.
	second, err := ts.Token()
	if err != nil {
		t.Fatalf("refresh: %v", err)
	}
	c2 := decode(t, second.AccessToken).Claims
	if second.AccessToken == first.AccessToken || c2.Aud != c.Aud || c2.Sub != "bob" || c2.Scope != "mcp" {
		t.Errorf("refreshed token: %+v (same as the first: %v)", c2, second.AccessToken == first.AccessToken)
	}
}

// TestStdinCloses checks that the provider exits by itself when its stdin closes, as when the
// test process is killed.
func TestStdinCloses(t *testing.T) {
	p := Start(t, nil)
	p.stdin.Close()
	select {
	case <-p.exited:
	case <-time.After(5 * time.Second):
		t.Fatal("the provider still runs 5s after its stdin closed")
	}
}

// register registers a client with metadata, failing t unless the provider accepts it.
func register(t *testing.T, p *Provider, metadata map[string]any) (id, secret string) {
	t.Helper()
	body, _ := json.Marshal(metadata)
	resp, err := p.hc.Post(p.meta.RegistrationEndpoint, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var reg struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
		Error        string `json:"error_description"`
	}
	json.NewDecoder(resp.Body).Decode(&reg)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("registering %v: %s: %s", metadata, resp.Status, reg.Error)
	}
	return reg.ClientID, reg.ClientSecret
}

// TestRegistration registers a web client with a loopback http redirect URI, and a
// confidential client that gets a token for a resource with the client credentials grant.
func TestRegistration(t *testing.T) {
	p := Start(t, nil)
	register(t, p, map[string]any{"application_type": "web", "redirect_uris": []string{"http://127.0.0.1:43210/callback"}})

	id, secret := register(t, p, map[string]any{"grant_types": []string{"client_credentials"}, "response_types": []string{}, "redirect_uris": []string{}})
	cc := &clientcredentials.Config{
		ClientID: id, ClientSecret: secret, TokenURL: p.meta.TokenEndpoint, Scopes: []string{"mcp", "agent:ci"},
		EndpointParams: url.Values{"resource": {resource}},
	}
	tok, err := cc.Token(context.WithValue(t.Context(), oauth2.HTTPClient, p.hc))
	if err != nil {
		t.Fatal(err)
	}
	j := decode(t, tok.AccessToken)
	if c := j.Claims; c.Aud != resource || c.Scope != "mcp agent:ci" || c.Exp-c.Iat != 300 || !verifies(t, p, j) {
		t.Errorf("client credentials token: %+v", c)
	}
}

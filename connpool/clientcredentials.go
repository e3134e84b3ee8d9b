package connpool

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentpool/agentpool/decl"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

var _ auth.OAuthHandler = (*clientCredentials)(nil)

// clientCredentials is the client credentials grant (RFC 6749 §4.4, MCP ext-auth SEP-1046)
// as an auth.OAuthHandler. The go-sdk's extauth.ClientCredentialsHandler does not serve:
// it authenticates with a client secret only (no private_key_jwt, RFC 7523), sends no RFC
// 8707 resource, and prefers client_secret_post even where the configuration says basic.
type clientCredentials struct {
	cfg decl.Auth
	hc  *http.Client
	key *signer // AuthPrivateKeyJWT only

	mu      sync.Mutex
	ts      oauth2.TokenSource
	granted []string // the scopes asked for so far: a step-up asks for these and more
}

func (h *clientCredentials) TokenSource(context.Context) (oauth2.TokenSource, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.ts, nil
}

// Authorize discovers the token endpoint from the server's challenge and gets a token for
// the scopes it asks for (with those granted before, on a step-up).
func (h *clientCredentials) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	defer resp.Body.Close()
	defer io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	cs, err := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if err != nil {
		return fmt.Errorf("parse WWW-Authenticate: %w", err)
	}
	prm, err := discoverResource(ctx, cs, req.URL.String(), h.hc)
	if err != nil {
		return err
	}
	asm, err := auth.GetAuthServerMetadata(ctx, prm.AuthorizationServers[0], h.hc)
	if err != nil {
		return fmt.Errorf("authorization server metadata: %w", err)
	}
	if asm == nil { // 2025-03-26: the server's origin is its authorization server, at fixed paths
		base := strings.TrimSuffix(prm.AuthorizationServers[0], "/")
		asm = &oauthex.AuthServerMeta{Issuer: base, TokenEndpoint: base + "/token"}
	}
	scopes := strings.Fields(challengeParam(cs, "scope"))
	if len(scopes) == 0 {
		scopes = prm.ScopesSupported
	}
	if len(scopes) == 0 {
		scopes = h.cfg.Scopes
	}
	h.mu.Lock()
	for _, s := range h.granted {
		if !slices.Contains(scopes, s) {
			scopes = append(scopes, s)
		}
	}
	h.mu.Unlock()
	method := h.cfg.TokenEndpointAuth
	if method == "" {
		method = AuthClientSecretBasic // RFC 7591 §2's default
		if supported := asm.TokenEndpointAuthMethodsSupported; !slices.Contains(supported, AuthClientSecretBasic) &&
			slices.Contains(supported, AuthClientSecretPost) {
			method = AuthClientSecretPost
		}
	}
	fetch := func(ctx context.Context) (*oauth2.Token, error) {
		return h.token(ctx, asm, method, scopes, prm.Resource)
	}
	tok, err := fetch(ctx)
	if err != nil {
		return err
	}
	ts := newRenewing(tok, func(*oauth2.Token) (*oauth2.Token, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		return fetch(ctx)
	}, nil) // not stored: the client's credentials get a new one at any time
	h.mu.Lock()
	h.ts, h.granted = ts, scopes
	h.mu.Unlock()
	return nil
}

// token makes one client credentials token request.
func (h *clientCredentials) token(ctx context.Context, asm *oauthex.AuthServerMeta, method string, scopes []string, resource string) (*oauth2.Token, error) {
	form := url.Values{"grant_type": {"client_credentials"}}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	if resource != "" {
		form.Set("resource", resource) // RFC 8707
	}
	switch method {
	case AuthClientSecretPost:
		form.Set("client_id", h.cfg.ClientID)
		form.Set("client_secret", h.cfg.ClientSecret)
	case AuthPrivateKeyJWT:
		assertion, err := h.key.assertion(h.cfg.ClientID, asm.Issuer)
		if err != nil {
			return nil, err
		}
		form.Set("client_id", h.cfg.ClientID)
		form.Set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
		form.Set("client_assertion", assertion)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, asm.TokenEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if method == AuthClientSecretBasic {
		// RFC 6749 §2.3.1: form-encoded, then Basic.
		req.SetBasicAuth(url.QueryEscape(h.cfg.ClientID), url.QueryEscape(h.cfg.ClientSecret))
	}
	resp, err := h.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("token request: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("token request: %w", err)
	}
	var tr struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
		ExpiresIn   int64  `json:"expires_in"`
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	if err := json.Unmarshal(body, &tr); err != nil || resp.StatusCode != http.StatusOK || tr.AccessToken == "" {
		// The answer is an error (RFC 6749 §5.2): its code and description only, never the body.
		if tr.Error != "" {
			return nil, fmt.Errorf("token request: HTTP %d: %s: %s", resp.StatusCode, tr.Error, tr.Description)
		}
		return nil, fmt.Errorf("token request: HTTP %d without an access token", resp.StatusCode)
	}
	tok := &oauth2.Token{AccessToken: tr.AccessToken, TokenType: tr.TokenType}
	if tr.ExpiresIn > 0 {
		tok.Expiry = time.Now().Add(time.Duration(tr.ExpiresIn) * time.Second)
	}
	return tok, nil
}

// discoverResource finds the server's protected resource metadata (RFC 9728) where the MCP
// specification says to look: the challenge's resource_metadata, then the well-known path of
// the endpoint, then of its root. The metadata's resource must be the server's (checked by
// oauthex). None found: the 2025-03-26 fallback, the server's origin as its authorization
// server.
func discoverResource(ctx context.Context, cs []oauthex.Challenge, endpoint string, hc *http.Client) (*oauthex.ProtectedResourceMetadata, error) {
	ru, err := url.Parse(endpoint)
	if err != nil {
		return nil, err
	}
	type try struct{ meta, resource string }
	var tries []try
	if m := challengeParam(cs, "resource_metadata"); m != "" {
		tries = append(tries, try{m, endpoint})
	}
	mu := *ru
	mu.RawQuery, mu.Fragment = "", ""
	mu.Path = "/.well-known/oauth-protected-resource/" + strings.TrimLeft(ru.Path, "/")
	tries = append(tries, try{mu.String(), endpoint})
	mu.Path = "/.well-known/oauth-protected-resource"
	root := *ru
	root.Path, root.RawQuery, root.Fragment = "", "", ""
	tries = append(tries, try{mu.String(), root.String()})
	for _, t := range tries {
		prm, err := oauthex.GetProtectedResourceMetadata(ctx, t.meta, t.resource, hc)
		if err != nil || prm == nil {
			continue
		}
		if len(prm.AuthorizationServers) == 0 {
			return nil, errors.New("protected resource metadata names no authorization server")
		}
		return prm, nil
	}
	return &oauthex.ProtectedResourceMetadata{AuthorizationServers: []string{root.String()}, Resource: endpoint}, nil
}

// signer signs RFC 7523 client assertions.
type signer struct {
	key crypto.Signer
	alg string
}

// maxKeyFile bounds a private key file.
const maxKeyFile = 64 << 10

// loadSigner reads a PEM private key: PKCS #8, SEC 1 (EC) or PKCS #1 (RSA). Its
// algorithm follows from the key: ES256 (P-256), ES384 (P-384), RS256 (RSA), EdDSA (Ed25519).
func loadSigner(path string) (*signer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("private key: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxKeyFile))
	if err != nil {
		return nil, fmt.Errorf("private key %s: %w", path, err)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, fmt.Errorf("private key %s: no PEM block", path)
	}
	var key any
	if key, err = x509.ParsePKCS8PrivateKey(block.Bytes); err != nil {
		if key, err = x509.ParseECPrivateKey(block.Bytes); err != nil {
			if key, err = x509.ParsePKCS1PrivateKey(block.Bytes); err != nil {
				return nil, fmt.Errorf("private key %s: not a PKCS #8, SEC 1 or PKCS #1 private key", path)
			}
		}
	}
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		switch k.Curve {
		case elliptic.P256():
			return &signer{k, "ES256"}, nil
		case elliptic.P384():
			return &signer{k, "ES384"}, nil
		}
		return nil, fmt.Errorf("private key %s: unsupported curve %s", path, k.Curve.Params().Name)
	case *rsa.PrivateKey:
		return &signer{k, "RS256"}, nil
	case ed25519.PrivateKey:
		return &signer{k, "EdDSA"}, nil
	}
	return nil, fmt.Errorf("private key %s: unsupported key type %T", path, key)
}

// assertion returns a fresh signed JWT naming clientID as issuer and subject and audience as
// its audience (RFC 7523 §3), valid for five minutes.
func (s *signer) assertion(clientID, audience string) (string, error) {
	now := time.Now()
	head, _ := json.Marshal(map[string]string{"alg": s.alg, "typ": "JWT"})
	claims, _ := json.Marshal(map[string]any{
		"iss": clientID, "sub": clientID, "aud": audience,
		"iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(), "jti": rand.Text(),
	})
	enc := base64.RawURLEncoding
	input := enc.EncodeToString(head) + "." + enc.EncodeToString(claims)
	var sig []byte
	var err error
	switch k := s.key.(type) {
	case *ecdsa.PrivateKey:
		var digest []byte
		if s.alg == "ES384" {
			d := sha512.Sum384([]byte(input))
			digest = d[:]
		} else {
			d := sha256.Sum256([]byte(input))
			digest = d[:]
		}
		var r, ss *big.Int
		if r, ss, err = ecdsa.Sign(rand.Reader, k, digest); err == nil {
			n := (k.Curve.Params().BitSize + 7) / 8 // JWS: r and s fixed-width, big-endian
			sig = append(r.FillBytes(make([]byte, n)), ss.FillBytes(make([]byte, n))...)
		}
	case *rsa.PrivateKey:
		d := sha256.Sum256([]byte(input))
		sig, err = rsa.SignPKCS1v15(rand.Reader, k, crypto.SHA256, d[:])
	case ed25519.PrivateKey:
		sig = ed25519.Sign(k, []byte(input))
	}
	if err != nil {
		return "", fmt.Errorf("sign the client assertion: %w", err)
	}
	return input + "." + enc.EncodeToString(sig), nil
}

package connpool

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentpool/agentpool/decl"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// OAuth grant types accepted in ServerConfig.Auth.Type (decl's).
const (
	// GrantClientCredentials is the client credentials grant (RFC 6749 §4.4, the MCP
	// ext-auth SEP-1046): machine to machine, no user.
	GrantClientCredentials = decl.GrantClientCredentials
	// GrantAuthorizationCode is the authorization code grant with PKCE, the user
	// authorizing in a browser (Options.AuthorizeUser).
	GrantAuthorizationCode = decl.GrantAuthorizationCode
)

// Token endpoint authentication methods accepted in ServerConfig.Auth.TokenEndpointAuth
// (RFC 7591 §2 names, decl's).
const (
	AuthClientSecretBasic = decl.AuthClientSecretBasic
	AuthClientSecretPost  = decl.AuthClientSecretPost
	AuthPrivateKeyJWT     = decl.AuthPrivateKeyJWT
	AuthNone              = decl.AuthNone
)

// DefaultRedirectURL is the loopback redirect of the authorization code flow when
// ServerConfig.Auth.RedirectPort is zero.
const DefaultRedirectURL = "http://127.0.0.1:33418/callback"

// ErrNeedsLogin reports that an HTTP server wants a user's authorization that only
// `agentpool login SERVER` can obtain: no token is stored, or the stored one was revoked
// and cannot be refreshed. It is wrapped together with ErrStart and ErrPermanent.
var ErrNeedsLogin = errors.New("needs login")

// The OAuth client of an HTTP server is its declaration's auth (decl.Auth, ServerConfig.Auth).
// Endpoints are discovered from the server's 401 (RFC 9728 protected resource metadata, then
// RFC 8414 or OpenID Connect authorization server metadata); nothing there names them. For
// the authorization code grant, ClientID and ClientSecret may both be empty: the client then
// registers itself (a client ID metadata document, else dynamic client registration). The
// PrivateKeyFile of private_key_jwt is a PEM file (PKCS #8, or SEC 1 / PKCS #1) holding the
// key that signs the client assertion (RFC 7523): ES256 for an EC P-256 key, RS256 for an RSA
// key; it is read at each start.

// authFingerprint is what identifies the client of a in ServerConfig.Fingerprint.
func authFingerprint(a *decl.Auth) []string {
	if a == nil {
		return nil
	}
	return append([]string{a.Type, a.ClientID, a.ClientSecret, a.TokenEndpointAuth, a.PrivateKeyFile,
		redirectURL(a), a.ClientMetadataURL}, a.Scopes...)
}

// redirectURL is a's loopback redirect as declared: "" when it names no port (the default).
func redirectURL(a *decl.Auth) string {
	if a.RedirectPort == 0 {
		return ""
	}
	return a.RedirectURL()
}

// validateAuth returns the first problem of a, or "".
func validateAuth(a *decl.Auth) string {
	switch a.TokenEndpointAuth {
	case "", AuthClientSecretBasic, AuthClientSecretPost, AuthPrivateKeyJWT, AuthNone:
	default:
		return fmt.Sprintf("auth: unknown token endpoint auth %q (want %s, %s, %s or %s)", a.TokenEndpointAuth,
			AuthClientSecretBasic, AuthClientSecretPost, AuthPrivateKeyJWT, AuthNone)
	}
	if a.TokenEndpointAuth == AuthPrivateKeyJWT && a.PrivateKeyFile == "" {
		return "auth: private_key_jwt needs a private key file"
	}
	if a.PrivateKeyFile != "" && a.TokenEndpointAuth != AuthPrivateKeyJWT {
		return "auth: a private key file is used only with private_key_jwt"
	}
	switch a.Type {
	case GrantClientCredentials:
		if a.ClientID == "" {
			return "auth: client_credentials needs a client id"
		}
		if a.ClientSecret == "" && a.TokenEndpointAuth != AuthPrivateKeyJWT {
			return "auth: client_credentials needs a client secret or private_key_jwt"
		}
		if a.TokenEndpointAuth == AuthNone {
			return "auth: client_credentials needs client authentication (not none)"
		}
	case GrantAuthorizationCode:
		if a.TokenEndpointAuth == AuthPrivateKeyJWT {
			return "auth: private_key_jwt is supported for client_credentials only"
		}
		if a.ClientSecret != "" && a.ClientID == "" {
			return "auth: a client secret needs its client id"
		}
		if a.RedirectPort < 0 || a.RedirectPort > 65535 {
			return fmt.Sprintf("auth: the redirect port %d is not a port number", a.RedirectPort)
		}
		if a.ClientMetadataURL != "" {
			u, err := url.Parse(a.ClientMetadataURL)
			if err != nil || u.Scheme != "https" || u.Host == "" || strings.Trim(u.Path, "/") == "" {
				return "auth: the client metadata URL must be an https URL with a path"
			}
		}
	default:
		return fmt.Sprintf("auth: unknown grant %q (want %s or %s)", a.Type, GrantClientCredentials, GrantAuthorizationCode)
	}
	return ""
}

// authorizer puts an OAuth handler's token on the requests to an HTTP server and, when the
// server answers 401 (or 403 insufficient_scope), runs the handler's Authorize once and sends
// the request again, as the go-sdk's streamable transport does with its OAuthHandler. It sits
// in the pool's own http.RoundTripper, not in the SDK's transport, so that every request of
// the client is authorized: the SDK's, SSE's, and the calls connpool passes through (rawHTTP).
type authorizer struct {
	server  string
	handler auth.OAuthHandler
	logger  interface{ Warn(string, ...any) }

	mu  sync.Mutex // serialises Authorize
	gen uint64     // counts successful Authorize calls; guarded by mu
	err error      // the last Authorize failure (ErrNeedsLogin for a user flow); guarded by mu
}

// roundTrip sends req through send with the current token, authorizing and sending again
// once if the server refuses it.
func (a *authorizer) roundTrip(send func(*http.Request) (*http.Response, error), req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	a.mu.Lock()
	gen := a.gen
	a.mu.Unlock()
	withTok := a.withToken(req)
	sent := withTok.Header.Get("Authorization")
	resp, err := send(withTok)
	if err != nil || !challenged(resp) {
		return resp, err
	}
	if req.Body != nil && req.GetBody == nil {
		return resp, nil // cannot be sent again
	}
	if resp.StatusCode == http.StatusUnauthorized && a.renewRefused(ctx, sent) {
		// The server refused a token before its expiry (revoked early, or issued with no
		// expires_in): a refresh may do, where Authorize would ask the user again. The
		// answer is read to its end (a little of it) so that its connection is used again.
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
		resp.Body.Close()
		if resp, err = a.resend(send, req); err != nil || !challenged(resp) {
			return resp, err
		}
	}
	a.mu.Lock()
	if a.gen == gen { // no other request has authorized since this one was sent
		aerr := a.handler.Authorize(ctx, req, resp) // closes resp.Body
		if aerr != nil {
			if ctx.Err() == nil {
				a.err = aerr
			}
			a.mu.Unlock()
			return nil, fmt.Errorf("authorize %s: %w", a.server, aerr)
		}
		a.gen++
		a.err = nil
	} else {
		resp.Body.Close()
	}
	a.mu.Unlock()
	return a.resend(send, req)
}

// resend sends req again, with a fresh body and the current token.
func (a *authorizer) resend(send func(*http.Request) (*http.Response, error), req *http.Request) (*http.Response, error) {
	again := req.Clone(req.Context())
	if req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		again.Body = body
	}
	return send(a.withToken(again))
}

// renewRefused refreshes the handler's token now if the server refused it (sent is the
// Authorization header it was sent with) and it can be refreshed, and reports whether there
// is another token to try: one this refresh or another request's got.
func (a *authorizer) renewRefused(ctx context.Context, sent string) bool {
	ts, err := a.handler.TokenSource(ctx)
	r, ok := ts.(*renewing)
	if err != nil || !ok || sent == "" {
		return false
	}
	renewed, err := r.renewRefused(strings.TrimSpace(sent[strings.IndexByte(sent, ' ')+1:]))
	if err != nil {
		a.logger.Warn("connpool: OAuth token refused by the server, and its refresh failed", "server", a.server, "err", tokenError(err))
	}
	return renewed
}

// withToken returns req carrying the handler's current token, if it has one. A token that
// cannot be had (a refresh refused) is left out: the server's 401 then runs Authorize.
func (a *authorizer) withToken(req *http.Request) *http.Request {
	ts, err := a.handler.TokenSource(req.Context())
	if err != nil || ts == nil {
		return req
	}
	tok, err := ts.Token()
	if err != nil {
		a.logger.Warn("connpool: OAuth token refresh failed; asking the server again", "server", a.server, "err", tokenError(err))
		return req
	}
	r := req.Clone(req.Context())
	tok.SetAuthHeader(r)
	return r
}

// tokenError is err as it may be logged: a token endpoint's error answer by its code and
// description only (oauth2.RetrieveError's message quotes the whole body).
func tokenError(err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && re.Response != nil {
		return fmt.Errorf("token endpoint: HTTP %d: %s %s", re.Response.StatusCode, re.ErrorCode, re.ErrorDescription)
	}
	return err
}

// lastErr returns the last Authorize failure, or nil.
func (a *authorizer) lastErr() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.err
}

// challenged reports whether resp asks for (more) authorization: 401, or 403 with
// insufficient_scope (step-up). Another 403 is the server's answer.
func challenged(resp *http.Response) bool {
	switch resp.StatusCode {
	case http.StatusUnauthorized:
		return true
	case http.StatusForbidden:
		cs, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
		return challengeParam(cs, "error") == "insufficient_scope"
	}
	return false
}

// challengeParam returns a parameter of the first Bearer challenge that has it.
func challengeParam(cs []oauthex.Challenge, name string) string {
	for _, c := range cs {
		if c.Scheme == "bearer" && c.Params[name] != "" {
			return c.Params[name]
		}
	}
	return ""
}

// newOAuthHandler builds the handler of cfg.Auth for the server named label. hc makes the
// requests to the metadata, registration and token endpoints (never with the server's
// headers).
func newOAuthHandler(cfg ServerConfig, label string, opts *Options, hc *http.Client, shared *sharedTokens) (auth.OAuthHandler, error) {
	a := cfg.Auth
	if a.Type == GrantClientCredentials {
		h := &clientCredentials{cfg: *a, hc: hc}
		if a.TokenEndpointAuth == AuthPrivateKeyJWT {
			key, err := loadSigner(a.PrivateKeyFile)
			if err != nil {
				return nil, fmt.Errorf("auth: %w", err)
			}
			h.key = key
		}
		return h, nil
	}
	redirect := a.RedirectURL()
	key := TokenKey{Server: label, URL: cfg.URL}
	// The resource the authorization asked for (the go-sdk's, from the server's metadata) is
	// what a refresh asks for again, and is stored with the token for another process; a
	// token stored without it refreshes for the server's URL.
	resource := &authResource{url: cfg.URL}
	// save stores a user's token with what refreshing it needs, so that another client (a
	// restart, agentpool serve after agentpool login) uses it without a login.
	save := func(oc *oauth2.Config) func(*oauth2.Token) {
		if opts.Tokens == nil {
			return nil
		}
		// The scopes granted: those asked for, unless the token answer says which (RFC 6749
		// §5.1: it must when they differ), as the go-sdk counts them. A refresh's answer
		// keeps them. Called under the token source's lock (or before it is shared).
		scopes := oc.Scopes
		return func(tok *oauth2.Token) {
			if s, ok := tok.Extra("scope").(string); ok {
				scopes = strings.Fields(s)
			}
			err := opts.Tokens.Save(key, &StoredToken{AccessToken: tok.AccessToken, TokenType: tok.TokenType,
				RefreshToken: tok.RefreshToken, Expiry: tok.Expiry, TokenURL: oc.Endpoint.TokenURL,
				ClientID: oc.ClientID, ClientSecret: oc.ClientSecret, AuthStyle: int(oc.Endpoint.AuthStyle), Scopes: scopes,
				Resource: resource.get()})
			if err != nil {
				opts.Logger.Warn("connpool: could not store the OAuth token", "server", label, "err", err)
			}
		}
	}
	refresher := func(ctx context.Context, oc *oauth2.Config) func(*oauth2.Token) (*oauth2.Token, error) {
		return func(old *oauth2.Token) (*oauth2.Token, error) {
			if old.RefreshToken == "" {
				return nil, fmt.Errorf("%w: the token expired and no refresh token was issued: run agentpool login %s", ErrNeedsLogin, label)
			}
			return refreshToken(ctx, shared.client(), oc, old.RefreshToken, resource.get())
		}
	}
	var granted []string // the stored token's scopes (set below, before any authorization)
	hcfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL: redirect,
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			if opts.AuthorizeUser == nil {
				return nil, fmt.Errorf("%w: run agentpool login %s", ErrNeedsLogin, label)
			}
			resource.from(args.URL)
			return opts.AuthorizeUser(ctx, label, args.URL)
		},
		RequestRefreshToken: true,
		Client:              hc,
		NewTokenSource: func(ctx context.Context, oc *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			return shared.adopt(key, newRenewing(tok, refresher(ctx, oc), save(oc))), nil
		},
		ScopeFilter: func(discovered []string) []string {
			scopes := discovered
			if len(scopes) == 0 {
				scopes = a.Scopes
			}
			// What the user granted before (a step-up's scopes), stored with their token: the
			// go-sdk remembers it only within one run.
			for _, s := range granted {
				if !slices.Contains(scopes, s) {
					scopes = append(slices.Clip(scopes), s)
				}
			}
			return slices.Clone(scopes)
		},
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{
			Metadata: &oauthex.ClientRegistrationMetadata{
				RedirectURIs: []string{redirect},
				ClientName:   "agentpool",
				GrantTypes:   []string{"authorization_code", "refresh_token"},
			},
		},
	}
	if opts.Tokens != nil {
		st, err := opts.Tokens.Load(key)
		if err != nil {
			return nil, fmt.Errorf("auth: %w", err)
		}
		if st != nil {
			granted = st.Scopes
			if st.Resource != "" {
				resource.url = st.Resource // before any use: no lock needed yet
			}
		}
		if st != nil && st.AccessToken != "" {
			load := func() (*StoredToken, error) { return opts.Tokens.Load(key) }
			shared.fromStore(key, st, load, func(st *StoredToken) *renewing {
				oc := st.config()
				ctx := context.WithValue(context.Background(), oauth2.HTTPClient, shared.client())
				return newRenewing(st.token(), refresher(ctx, oc), save(oc))
			})
		}
	}
	// Another client of this server and user (the pool's, another session's) has a token
	// already: this one uses it, and renews it for both.
	if r := shared.get(key); r != nil {
		hcfg.InitialTokenSource = r
	}
	if a.ClientMetadataURL != "" {
		hcfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: a.ClientMetadataURL}
	}
	if a.ClientID != "" {
		pre := &oauthex.ClientCredentials{ClientID: a.ClientID}
		if a.ClientSecret != "" {
			pre.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: a.ClientSecret}
		}
		hcfg.PreregisteredClient = pre
	}
	return auth.NewAuthorizationCodeHandler(hcfg)
}

// renewing is a token source that renews its token before it expires: at three quarters of
// its lifetime, or 30 s before its expiry for a lifetime over two minutes, rather than at
// oauth2's fixed 10 s (which renews a 2 s token on every request). A failed renewal keeps
// the old token while it is valid, and is tried again after renewRetry (or halfway to the
// expiry, if sooner), not by every request.
// renewRetry is the pause after a failed renewal while the old token is valid.
const renewRetry = 5 * time.Second

type renewing struct {
	renew func(old *oauth2.Token) (*oauth2.Token, error)
	saved func(*oauth2.Token) // called with each new token; may be nil

	mu      sync.Mutex
	tok     *oauth2.Token
	renewAt time.Time
}

func newRenewing(tok *oauth2.Token, renew func(*oauth2.Token) (*oauth2.Token, error), saved func(*oauth2.Token)) *renewing {
	r := &renewing{renew: renew, saved: saved}
	r.set(tok)
	return r
}

// takeOver makes n's token, renewal and saving r's (n is a new source of the same server and
// user, made by a new authorization, and saved already).
func (r *renewing) takeOver(n *renewing) {
	n.mu.Lock()
	snap := renewing{tok: n.tok, renewAt: n.renewAt, renew: n.renew, saved: n.saved}
	n.mu.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.takeOverLocked(&snap)
}

// takeOverLocked is takeOver with r.mu held and n not shared.
func (r *renewing) takeOverLocked(n *renewing) {
	r.tok, r.renewAt, r.renew, r.saved = n.tok, n.renewAt, n.renew, n.saved
}

func (r *renewing) set(tok *oauth2.Token) {
	r.tok = tok
	r.renewAt = time.Time{}
	if !tok.Expiry.IsZero() {
		life := time.Until(tok.Expiry)
		if life > 2*time.Minute {
			r.renewAt = tok.Expiry.Add(-30 * time.Second)
		} else {
			r.renewAt = time.Now().Add(life * 3 / 4)
		}
	}
	if r.saved != nil {
		r.saved(tok)
	}
}

// renewRefused renews the token now if refused (an access token a server would not take) is
// still the current one and has a refresh token; it reports whether the current token is
// another than refused, and why a renewal failed.
func (r *renewing) renewRefused(refused string) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tok == nil {
		return false, nil
	}
	if r.tok.AccessToken != refused {
		return true, nil // renewed since it was sent
	}
	if r.tok.RefreshToken == "" {
		return false, nil
	}
	tok, err := r.renew(r.tok)
	if err != nil {
		return false, err
	}
	r.set(tok)
	return true, nil
}

// Token returns the current token, renewed first when it is due.
func (r *renewing) Token() (*oauth2.Token, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.renewAt.IsZero() || time.Now().Before(r.renewAt) {
		return r.tok, nil
	}
	tok, err := r.renew(r.tok)
	if err != nil {
		if left := time.Until(r.tok.Expiry); left > 0 {
			r.renewAt = time.Now().Add(min(renewRetry, left/2))
			return r.tok, nil
		}
		return nil, err
	}
	r.set(tok)
	return tok, nil
}

// authResource is the RFC 8707 resource of a server's user authorization.
type authResource struct {
	mu  sync.Mutex
	url string
}

// from takes the resource parameter of the authorization URL the go-sdk built, if it has one.
func (r *authResource) from(authURL string) {
	u, err := url.Parse(authURL)
	if err != nil {
		return
	}
	if res := u.Query().Get("resource"); res != "" {
		r.mu.Lock()
		r.url = res
		r.mu.Unlock()
	}
}

func (r *authResource) get() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.url
}

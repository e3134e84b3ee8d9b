package bearer

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// Defaults and limits; see the package documentation.
const (
	// DefaultLeeway is the clock skew allowed on exp, nbf and iat when Config.Leeway is 0.
	DefaultLeeway = 30 * time.Second
	// DefaultHTTPTimeout bounds each request to the IdP when Config.HTTPClient is nil.
	DefaultHTTPTimeout = 10 * time.Second

	minFetchInterval = 5 * time.Second  // between two discovery/JWKS fetch attempts
	defaultKeysTTL   = 10 * time.Minute // JWKS refresh without a Cache-Control max-age
	minKeysTTL       = time.Minute
	maxKeysTTL       = time.Hour
	fetchTimeout     = 3 * time.Second // a shared fetch outlives its caller's cancellation, not this
	maxBody          = 1 << 20         // metadata and JWKS documents
	maxCached        = 4096            // verified tokens
)

// allowedAlgs are the signature algorithms a token may use: asymmetric ones only.
var allowedAlgs = []jose.SignatureAlgorithm{
	jose.RS256, jose.RS384, jose.RS512,
	jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512,
	jose.EdDSA,
}

// Config configures a [Verifier].
type Config struct {
	// Issuer is the authorization server's issuer identifier, compared exactly with the
	// metadata's "issuer" and every token's "iss". Required; https, or http on a loopback host
	// (for tests and local development).
	Issuer string
	// JWKSURL, when set, is used instead of discovering the issuer's jwks_uri. Same scheme
	// rule as Issuer.
	JWKSURL string
	// Audiences are accepted "aud" values besides the resource a request is for.
	Audiences []string
	// Leeway is the clock skew allowed on exp, nbf and iat; 0 means DefaultLeeway. Negative
	// is an error.
	Leeway time.Duration
	// HTTPClient fetches the metadata and the JWKS; nil means a client with DefaultHTTPTimeout
	// that follows redirects only to https URLs (or http ones on a loopback host).
	HTTPClient *http.Client
	// Logger, when set, hears about fetches and their failures (never a token).
	Logger *slog.Logger
}

// A Verifier verifies JWT access tokens issued by one authorization server. It is safe for
// concurrent use.
type Verifier struct {
	issuer    string
	audiences []string
	leeway    time.Duration
	client    *http.Client
	log       *slog.Logger

	// Test hooks.
	now           func() time.Time
	fetchInterval time.Duration

	mu          sync.Mutex
	jwksURL     string            // configured or discovered; "" until discovery succeeds
	keys        []jose.JSONWebKey // nil until the first successful fetch
	keysSum     [32]byte          // SHA-256 of the JWKS document the keys came from
	keysGen     uint64            // counts the changes of keys (each empties the cache)
	keysExpire  time.Time         // when the keys are to be refreshed
	lastAttempt time.Time         // the last fetch attempt (discovery and/or JWKS)
	lastErr     error             // its error, if it failed
	inflight    chan struct{}     // closed when the running fetch ends; nil if none runs
	fetches     int               // JWKS fetches attempted (for tests)

	cache map[[32]byte]cacheEntry
}

type cacheEntry struct {
	info *auth.TokenInfo
	exp  time.Time
}

// New returns a Verifier for cfg. It only checks cfg: nothing is fetched until the first
// [Verifier.Verify].
func New(cfg Config) (*Verifier, error) {
	if cfg.Issuer == "" {
		return nil, errors.New("bearer: Issuer is required")
	}
	if err := checkURL(cfg.Issuer); err != nil {
		return nil, fmt.Errorf("bearer: Issuer: %w", err)
	}
	if strings.Contains(cfg.Issuer, "?") { // RFC 8414 §2: no query (a jwks_uri may have one)
		return nil, fmt.Errorf("bearer: Issuer: %q has a query", cfg.Issuer)
	}
	if cfg.JWKSURL != "" {
		if err := checkURL(cfg.JWKSURL); err != nil {
			return nil, fmt.Errorf("bearer: JWKSURL: %w", err)
		}
	}
	if cfg.Leeway < 0 {
		return nil, fmt.Errorf("bearer: Leeway %v is negative", cfg.Leeway)
	}
	for _, a := range cfg.Audiences {
		if a == "" {
			return nil, errors.New("bearer: an empty string in Audiences")
		}
	}
	v := &Verifier{
		issuer:        cfg.Issuer,
		audiences:     slices.Clone(cfg.Audiences),
		leeway:        cfg.Leeway,
		client:        cfg.HTTPClient,
		log:           cfg.Logger,
		now:           time.Now,
		fetchInterval: minFetchInterval,
		jwksURL:       cfg.JWKSURL,
		cache:         make(map[[32]byte]cacheEntry),
	}
	if v.leeway == 0 {
		v.leeway = DefaultLeeway
	}
	if v.client == nil {
		v.client = &http.Client{Timeout: DefaultHTTPTimeout, CheckRedirect: checkRedirect}
	}
	if v.log == nil {
		v.log = slog.New(slog.DiscardHandler)
	}
	return v, nil
}

// checkURL accepts an absolute https URL, or an http one on a loopback host, without a
// fragment.
func checkURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	if u.Host == "" {
		return fmt.Errorf("%q is not an absolute URL", s)
	}
	if u.Fragment != "" {
		return fmt.Errorf("%q has a fragment", s)
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		h := u.Hostname()
		if h == "localhost" {
			return nil
		}
		if ip := net.ParseIP(h); ip != nil && ip.IsLoopback() {
			return nil
		}
		return fmt.Errorf("%q: http is allowed only on a loopback host", s)
	default:
		return fmt.Errorf("%q: scheme must be https", s)
	}
}

// checkRedirect, the default client's, follows at most 5 redirects, each to a URL that
// checkURL accepts: a redirect cannot take a fetch of keys from https to plain http.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 5 {
		return errors.New("stopped after 5 redirects")
	}
	u := *req.URL
	u.Fragment, u.RawFragment = "", ""
	if err := checkURL(u.String()); err != nil {
		return fmt.Errorf("redirect refused: %w", err)
	}
	return nil
}

// invalid returns an error wrapping auth.ErrInvalidToken.
func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", auth.ErrInvalidToken, fmt.Sprintf(format, args...))
}

// Verify checks token as an access token for resource (the URL of the endpoint the client
// asked for) and returns what it says. A token that is not acceptable gives an error wrapping
// [auth.ErrInvalidToken]; failing to reach the authorization server gives one that does not.
func (v *Verifier) Verify(ctx context.Context, token, resource string) (*auth.TokenInfo, error) {
	key := cacheKey(token, resource)
	now := v.now()
	v.mu.Lock()
	// The cache is used only while the keys are fresh: when they are due for a refresh, the
	// full path below refreshes them (and a changed JWKS empties the cache), so that a token
	// of a removed key does not live on in the cache.
	e, ok := v.cache[key]
	if ok && (!now.Before(e.exp) || !now.Before(v.keysExpire)) {
		delete(v.cache, key)
		ok = false
	}
	v.mu.Unlock()
	if ok {
		return cloneInfo(e.info), nil
	}

	info, gen, err := v.verify(ctx, token, resource)
	if err != nil {
		return nil, err
	}
	v.remember(key, info, gen)
	return cloneInfo(info), nil
}

func cacheKey(token, resource string) [32]byte {
	h := sha256.New()
	h.Write([]byte(token))
	h.Write([]byte{0})
	h.Write([]byte(resource))
	var k [32]byte
	h.Sum(k[:0])
	return k
}

func cloneInfo(in *auth.TokenInfo) *auth.TokenInfo {
	out := *in
	out.Scopes = slices.Clone(in.Scopes)
	out.Extra = maps.Clone(in.Extra)
	if aud, ok := out.Extra["aud"].([]string); ok {
		out.Extra["aud"] = slices.Clone(aud)
	}
	return &out
}

// remember caches info until its expiration, making room if the cache is full. gen is the
// keysGen of the keys that verified the token: if the keys have changed since, the cache was
// emptied meanwhile and info, which they vouched for, is not added to it.
func (v *Verifier) remember(key [32]byte, info *auth.TokenInfo, gen uint64) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if gen != v.keysGen {
		return
	}
	if len(v.cache) >= maxCached {
		now := v.now()
		for k, e := range v.cache {
			if !now.Before(e.exp) {
				delete(v.cache, k)
			}
		}
		// Still full: drop arbitrary entries (map order is random) down to 3/4.
		for k := range v.cache {
			if len(v.cache) < maxCached*3/4 {
				break
			}
			delete(v.cache, k)
		}
	}
	v.cache[key] = cacheEntry{info: info, exp: info.Expiration}
}

// claims are the parts of an access token's payload Verify reads.
type claims struct {
	jwt.Claims
	Scope    any    `json:"scope"`
	Scp      any    `json:"scp"`
	ClientID string `json:"client_id"`
	Azp      string `json:"azp"`
}

// verify does the work of Verify, without the cache. It also returns the keysGen of the keys
// that verified the token.
func (v *Verifier) verify(ctx context.Context, token, resource string) (*auth.TokenInfo, uint64, error) {
	if token == "" {
		return nil, 0, invalid("empty token")
	}
	if strings.Count(token, ".") != 2 {
		return nil, 0, invalid("not a JWT in compact form")
	}
	tok, err := jwt.ParseSigned(token, allowedAlgs)
	if err != nil {
		// go-jose's message may quote parts of the token; say what kind of failure it was only.
		if strings.Contains(err.Error(), "unexpected signature algorithm") {
			return nil, 0, invalid("signature algorithm not allowed (asymmetric algorithms only)")
		}
		return nil, 0, invalid("malformed JWS")
	}
	if len(tok.Headers) != 1 {
		return nil, 0, invalid("expected one signature, found %d", len(tok.Headers))
	}
	h := tok.Headers[0]
	if typ, ok := h.ExtraHeaders[jose.HeaderType]; ok {
		s, _ := typ.(string)
		switch strings.ToLower(s) {
		case "at+jwt", "application/at+jwt", "jwt":
		default:
			return nil, 0, invalid("typ header %q is not an access token's", truncate(s))
		}
	}

	keys, gen, err := v.keysFor(ctx, h.KeyID)
	if err != nil {
		return nil, 0, err
	}
	var c claims
	verified := false
	tried := 0
	for _, k := range keys {
		if h.KeyID != "" && k.KeyID != h.KeyID {
			continue
		}
		if k.Algorithm != "" && k.Algorithm != h.Algorithm {
			continue
		}
		tried++
		if tok.Claims(k.Key) == nil { // verifies the signature only
			verified = true
			break
		}
	}
	if !verified {
		// A kid the keys held have names the key that fails the token: no refresh would
		// change that. Otherwise the keys may be stale: the IdP's failure, not the token's
		// (503, not 401).
		kidHeld := h.KeyID != "" && slices.ContainsFunc(keys, func(k jose.JSONWebKey) bool { return k.KeyID == h.KeyID })
		if err := v.fetchFailed(); err != nil && !kidHeld {
			return nil, 0, fmt.Errorf("bearer: the token's key is not among the keys held, and the issuer's keys cannot be fetched now: %w", err)
		}
		if tried == 0 && h.KeyID != "" {
			return nil, 0, invalid("no key with kid %q for %s in the issuer's JWKS", truncate(h.KeyID), h.Algorithm)
		}
		return nil, 0, invalid("signature not verified by any of the issuer's keys")
	}
	if err := tok.UnsafeClaimsWithoutVerification(&c); err != nil { // verified just above
		return nil, 0, invalid("claims: %v", err)
	}
	info, err := v.checkClaims(&c, resource)
	return info, gen, err
}

func truncate(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}

// checkClaims checks a verified token's claims and builds its TokenInfo.
func (v *Verifier) checkClaims(c *claims, resource string) (*auth.TokenInfo, error) {
	if c.Issuer != v.issuer {
		return nil, invalid("issuer %q is not the configured %q", truncate(c.Issuer), v.issuer)
	}
	now := v.now()
	if c.Expiry == nil {
		return nil, invalid("no exp claim")
	}
	exp := c.Expiry.Time()
	if now.After(exp.Add(v.leeway)) {
		return nil, invalid("expired at %s", exp.UTC().Format(time.RFC3339))
	}
	if c.NotBefore != nil && now.Add(v.leeway).Before(c.NotBefore.Time()) {
		return nil, invalid("not valid before %s", c.NotBefore.Time().UTC().Format(time.RFC3339))
	}
	if c.IssuedAt != nil && now.Add(v.leeway).Before(c.IssuedAt.Time()) {
		return nil, invalid("issued in the future (%s)", c.IssuedAt.Time().UTC().Format(time.RFC3339))
	}
	if len(c.Audience) == 0 {
		return nil, invalid("no aud claim")
	}
	if !slices.ContainsFunc(c.Audience, func(a string) bool {
		return (a == resource && resource != "") || slices.Contains(v.audiences, a)
	}) {
		return nil, invalid("audience %q does not include %q or a configured audience", truncateAll(c.Audience), resource)
	}
	if c.Subject == "" {
		return nil, invalid("no sub claim")
	}
	scopes, err := scopesOf(c)
	if err != nil {
		return nil, err
	}
	extra := map[string]any{
		"iss": c.Issuer,
		"aud": []string(slices.Clone(c.Audience)),
	}
	if c.ClientID != "" {
		extra["client_id"] = c.ClientID
	} else if c.Azp != "" {
		extra["client_id"] = c.Azp
	}
	return &auth.TokenInfo{
		Scopes:     scopes,
		Expiration: exp,
		UserID:     c.Subject,
		Extra:      extra,
	}, nil
}

func truncateAll(ss []string) []string {
	out := make([]string, 0, min(len(ss), 8))
	for _, s := range ss[:min(len(ss), 8)] {
		out = append(out, truncate(s))
	}
	return out
}

// scopesOf reads "scope" (a space-separated string) or, when absent, "scp" (an array of
// strings or a space-separated string).
func scopesOf(c *claims) ([]string, error) {
	if c.Scope != nil {
		s, ok := c.Scope.(string)
		if !ok {
			return nil, invalid("scope claim is not a string")
		}
		return strings.Fields(s), nil
	}
	switch scp := c.Scp.(type) {
	case nil:
		return nil, nil
	case string:
		return strings.Fields(scp), nil
	case []any:
		out := make([]string, 0, len(scp))
		for _, x := range scp {
			s, ok := x.(string)
			if !ok {
				return nil, invalid("scp claim has a non-string element")
			}
			out = append(out, s)
		}
		return out, nil
	default:
		return nil, invalid("scp claim is neither a string nor an array")
	}
}

// keysFor returns the signing keys to try for a token naming kid (or none). It fetches the
// JWKS when there are no keys yet, when they are due for a refresh, or when kid is not among
// them; but never more often than once every fetchInterval, and one fetch at a time. A caller
// whose kid the keys held have never waits for a fetch: keys that are due are refreshed in
// the background (bounded by fetchTimeout) while it uses them. It also returns the keys'
// keysGen.
func (v *Verifier) keysFor(ctx context.Context, kid string) ([]jose.JSONWebKey, uint64, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	for {
		now := v.now()
		missing := v.keys == nil ||
			(kid != "" && !slices.ContainsFunc(v.keys, func(k jose.JSONWebKey) bool { return k.KeyID == kid }))
		if !missing {
			if !now.Before(v.keysExpire) && v.inflight == nil && v.mayFetch(now) {
				// Due: refreshed on its own, so that a slow or hanging IdP holds up no
				// request whose key is held.
				run := v.startFetch(now)
				go run(context.WithoutCancel(ctx))
			}
			return v.keys, v.keysGen, nil
		}
		if v.inflight != nil {
			ch := v.inflight
			v.mu.Unlock()
			select {
			case <-ch:
				v.mu.Lock()
				continue
			case <-ctx.Done():
				v.mu.Lock()
				return nil, 0, ctx.Err()
			}
		}
		if !v.mayFetch(now) {
			// Too soon to ask again: use what we have.
			if v.keys != nil {
				return v.keys, v.keysGen, nil
			}
			return nil, 0, fmt.Errorf("bearer: cannot get the issuer's keys (next attempt in %s): %w",
				(v.fetchInterval - now.Sub(v.lastAttempt)).Round(time.Second), v.lastErr)
		}
		run := v.startFetch(now)
		v.mu.Unlock()
		run(ctx)
		v.mu.Lock()
		if v.keys == nil {
			return nil, 0, v.lastErr
		}
		// Loop: the keys are fresh now (or kept after a failure), and the rate limit stops a
		// second fetch for a kid that is still missing.
	}
}

// mayFetch reports whether the rate limit allows a fetch attempt at now. v.mu is held.
func (v *Verifier) mayFetch(now time.Time) bool {
	return v.lastAttempt.IsZero() || now.Sub(v.lastAttempt) >= v.fetchInterval
}

// startFetch records a fetch attempt at now, which callers wait for on v.inflight, and returns
// the function that fetches and records the outcome; it is called without v.mu.
func (v *Verifier) startFetch(now time.Time) func(context.Context) {
	v.lastAttempt = now
	ch := make(chan struct{})
	v.inflight = ch
	jwksURL := v.jwksURL
	return func(ctx context.Context) {
		res, err := v.fetch(ctx, jwksURL)
		v.mu.Lock()
		defer v.mu.Unlock()
		v.inflight = nil
		close(ch)
		v.fetches++
		if res.jwksURL != "" {
			v.jwksURL = res.jwksURL
		}
		if err != nil {
			v.lastErr = err
			v.log.Warn("bearer: fetching the issuer's keys failed", "issuer", v.issuer, "err", err, "keeping_old_keys", v.keys != nil)
			if v.keys != nil && !now.Before(v.keysExpire) {
				// Keep using the old keys, and do not retry before fetchInterval.
				v.keysExpire = now.Add(v.fetchInterval)
			}
			return
		}
		v.lastErr = nil
		if res.sum != v.keysSum {
			clear(v.cache)
			v.keysGen++
			v.log.Info("bearer: issuer's keys (re)loaded", "issuer", v.issuer, "jwks_uri", v.jwksURL, "keys", len(res.keys))
		}
		v.keys, v.keysSum, v.keysExpire = res.keys, res.sum, now.Add(res.ttl)
	}
}

// fetchFailed returns the error of the last fetch attempt, nil when it succeeded.
func (v *Verifier) fetchFailed() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.lastErr
}

type fetched struct {
	jwksURL string
	keys    []jose.JSONWebKey
	sum     [32]byte
	ttl     time.Duration
}

// fetch discovers the JWKS URL if jwksURL is empty, and fetches the JWKS. The fetch is shared
// by every caller waiting on it, so it is not cancelled with ctx, only bounded by fetchTimeout.
func (v *Verifier) fetch(ctx context.Context, jwksURL string) (fetched, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), fetchTimeout)
	defer cancel()
	var res fetched
	if jwksURL == "" {
		u, err := v.discover(ctx)
		if err != nil {
			return res, err
		}
		jwksURL = u
		res.jwksURL = u
	}
	body, hdr, err := v.get(ctx, jwksURL)
	if err != nil {
		return res, fmt.Errorf("bearer: JWKS: %w", err)
	}
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(body, &set); err != nil {
		return res, fmt.Errorf("bearer: JWKS %s: %w", jwksURL, err)
	}
	if set.Keys == nil { // "keys" is required (RFC 7517 §5); [] is a set of no keys
		return res, fmt.Errorf("bearer: JWKS %s has no \"keys\" array", jwksURL)
	}
	for _, raw := range set.Keys {
		var k jose.JSONWebKey
		if err := k.UnmarshalJSON(raw); err != nil {
			v.log.Debug("bearer: skipping a JWKS key that does not parse", "err", err)
			continue
		}
		if k.Use != "" && k.Use != "sig" {
			continue
		}
		if _, sym := k.Key.([]byte); sym || !k.Valid() {
			continue
		}
		pub := k.Public()
		if !pub.Valid() {
			continue
		}
		res.keys = append(res.keys, pub)
	}
	if res.keys == nil {
		res.keys = []jose.JSONWebKey{} // fetched, but empty: distinct from never fetched
	}
	res.sum = sha256.Sum256(body)
	res.ttl = ttlOf(hdr)
	return res, nil
}

// ttlOf is how long a JWKS response may be used: its Cache-Control max-age, clamped.
func ttlOf(h http.Header) time.Duration {
	for _, d := range strings.Split(h.Get("Cache-Control"), ",") {
		d = strings.TrimSpace(d)
		if n, ok := strings.CutPrefix(strings.ToLower(d), "max-age="); ok {
			if s, err := strconv.Atoi(n); err == nil {
				return min(max(time.Duration(s)*time.Second, minKeysTTL), maxKeysTTL)
			}
		}
	}
	return defaultKeysTTL
}

// discover finds jwks_uri in the issuer's RFC 8414 or OpenID Connect metadata.
func (v *Verifier) discover(ctx context.Context) (string, error) {
	var errs []error
	for _, mu := range metadataURLs(v.issuer) {
		body, _, err := v.get(ctx, mu)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		var meta struct {
			Issuer  string `json:"issuer"`
			JWKSURI string `json:"jwks_uri"`
		}
		if err := json.Unmarshal(body, &meta); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", mu, err))
			continue
		}
		// RFC 8414 §3.3: the issuer in the metadata must be identical to the one it was
		// fetched for; otherwise the document must not be used. This is not a reason to try
		// the other location: the server is misconfigured, or it is not the issuer.
		if meta.Issuer != v.issuer {
			return "", fmt.Errorf("bearer: metadata at %s names issuer %q, not the configured %q", mu, truncate(meta.Issuer), v.issuer)
		}
		if meta.JWKSURI == "" {
			return "", fmt.Errorf("bearer: metadata at %s has no jwks_uri", mu)
		}
		if err := checkURL(meta.JWKSURI); err != nil {
			return "", fmt.Errorf("bearer: metadata at %s: jwks_uri: %w", mu, err)
		}
		v.log.Debug("bearer: discovered jwks_uri", "issuer", v.issuer, "metadata", mu, "jwks_uri", meta.JWKSURI)
		return meta.JWKSURI, nil
	}
	return "", fmt.Errorf("bearer: discovering the metadata of issuer %s: %w", v.issuer, errors.Join(errs...))
}

// metadataURLs are the places to look for the issuer's metadata, in order: RFC 8414 (with
// path insertion), then OpenID Connect Discovery (path insertion, then path appending, the
// latter being what OIDC itself specifies).
func metadataURLs(issuer string) []string {
	u, err := url.Parse(issuer)
	if err != nil {
		return nil
	}
	p := strings.Trim(u.Path, "/")
	at := func(path string) string {
		c := *u
		c.Path, c.RawPath = path, ""
		return c.String()
	}
	if p == "" {
		return []string{
			at("/.well-known/oauth-authorization-server"),
			at("/.well-known/openid-configuration"),
		}
	}
	return []string{
		at("/.well-known/oauth-authorization-server/" + p),
		at("/.well-known/openid-configuration/" + p),
		at("/" + p + "/.well-known/openid-configuration"),
	}
}

// get fetches u and returns its body (at most maxBody bytes) if the status is 200.
func (v *Verifier) get(ctx context.Context, u string) ([]byte, http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := v.client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		return nil, nil, fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, nil, fmt.Errorf("GET %s: %w", u, err)
	}
	if len(body) > maxBody {
		return nil, nil, fmt.Errorf("GET %s: body larger than %d bytes", u, maxBody)
	}
	return body, resp.Header, nil
}

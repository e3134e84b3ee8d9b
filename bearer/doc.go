// Package bearer verifies the OAuth 2.1 bearer tokens that clients present to agentpool serve
// when it runs as a protected resource (the MCP authorization spec; RFC 9728). A [Verifier]
// checks JWT access tokens (RFC 9068) issued by one authorization server, the configured
// issuer, and its [Verifier.Verify] has the shape the gateway injects as its token verifier.
//
// # What is verified
//
// A token is accepted only if all of these hold; otherwise Verify returns an error that wraps
// [auth.ErrInvalidToken] and says which check failed (never the token itself):
//
//   - it is a compact JWS signed with an asymmetric algorithm (RS256/384/512, PS256/384/512,
//     ES256/384/512, EdDSA); "none" and the HMAC algorithms are refused before any key is
//     looked at, so a public key can never be used as an HMAC secret;
//   - the signature verifies with a key of the issuer's JWKS: the keys whose "kid" matches the
//     token's, or every key when the token names no kid. Only public signing keys are used
//     ("use" absent or "sig"), a key's "alg", when it has one, must be the token's, and a key
//     embedded in the token's own header ("jwk", "x5c") is never trusted;
//   - "typ", when present, is "at+jwt", "application/at+jwt" (RFC 9068) or "JWT" (compared
//     without regard to case). Many IdPs still label access tokens "JWT", so that is accepted;
//     anything else (an ID token marked as such, a logout token, ...) is refused;
//   - "iss" equals Config.Issuer exactly (no trailing-slash folding);
//   - "exp" is present and not past, "nbf" and "iat", when present, are not in the future,
//     each allowing Config.Leeway of clock skew (default 30 s, a common choice that covers
//     ordinary NTP drift without stretching a token's life noticeably);
//   - "aud" contains the resource the client asked for (exact string match) or one of
//     Config.Audiences, for IdPs (Auth0, Okta, ...) that issue a fixed API audience;
//   - "sub" is present; it becomes TokenInfo.UserID.
//
// TokenInfo.Scopes comes from "scope" (a space-separated string) or, failing that, "scp" (an
// array or a string); TokenInfo.Extra holds "iss", "aud" and, when the token has one,
// "client_id" (or, failing that, "azp").
//
// # Talking to the authorization server
//
// [New] only validates its Config: nothing is fetched until the first Verify, so serve starts
// even when the IdP is down. The JWKS URL is Config.JWKSURL or, when that is empty, the
// "jwks_uri" of the issuer's metadata, found at the RFC 8414 well-known location
// (/.well-known/oauth-authorization-server) or, failing that, the OpenID Connect one
// (/.well-known/openid-configuration). The metadata's "issuer" must equal Config.Issuer
// exactly (RFC 8414 §3.3, OpenID Discovery §4.3); the go-sdk's auth.GetAuthServerMetadata is not
// used because it folds a trailing slash and insists on PKCE support, which a resource server
// has no need of.
//
// Every URL fetched (the issuer's metadata, the JWKS, and with the default HTTP client every
// redirect) must be https, or http on a loopback host. The issuer has no query (RFC 8414 §2);
// a jwks_uri may have one (Azure AD B2C's do).
//
// When the IdP cannot be reached (or answers nonsense), Verify returns an error that does NOT
// wrap ErrInvalidToken, so the gateway can answer 503 rather than 401. Fetches (discovery and
// JWKS together) are attempted at most once every 5 s, whatever the traffic: a down IdP is not
// hammered by every request, and concurrent callers share one fetch. While a refresh of the
// keys runs, the requests other than the one that started it are checked with the keys already
// held, unless they name a kid those lack: a slow IdP does not stall them.
//
// The JWKS is cached. It is fetched again when a token names a kid that is not in it (key
// rotation), subject to the same 5 s limit, so a flood of tokens with random kids costs at
// most one fetch per 5 s (the price: a token signed by a newly published key, arriving within
// 5 s of the last fetch, is refused until the next one is allowed); and it is refreshed when it
// gets old: after the response's Cache-Control max-age, clamped to between 1 minute and 1
// hour, or 10 minutes without one, so a key the IdP removes stops being trusted within the
// hour at most, as long as the IdP answers. If a refresh fails (a document without a "keys"
// array is a failure too), the keys already held are kept (and the failure logged) rather
// than failing every request.
//
// # The verified-token cache
//
// A token that passed is remembered, keyed by the SHA-256 of the token and the resource, until
// its "exp" (so a request with a known token costs a hash and a map lookup); the cache holds at
// most 4096 entries, is not consulted while the keys are due for a refresh, and is emptied
// whenever the JWKS changes, so a removed key's tokens do not outlive it in the cache.
// Failures are not cached.
//
// # Dependencies
//
// bearer is a leaf: it imports the go-sdk's auth package (for TokenInfo and ErrInvalidToken),
// github.com/go-jose/go-jose/v4 and the standard library, and nothing of agentpool's.
package bearer

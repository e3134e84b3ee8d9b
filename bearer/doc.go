// Package bearer verifies the OAuth 2.1 bearer tokens that clients present to agentpool serve
// when it runs as a protected resource (the MCP authorization spec; RFC 9728). A [Verifier]
// checks JWT access tokens (RFC 9068) issued by one authorization server, the configured
// issuer, and its [Verifier.Verify] has the shape the gateway injects as its token verifier.
//
//	v, err := bearer.New(bearer.Config{Issuer: "https://idp.example", Audiences: []string{"api://agentpool"}})
//	if err != nil {
//		return err // an invalid Config; nothing is fetched yet
//	}
//	info, err := v.Verify(ctx, token, "https://agentpool.example/mcp")
//	// errors.Is(err, auth.ErrInvalidToken): the client's fault (401); another error: the
//	// issuer could not be asked (503); else info.UserID and info.Scopes.
//
// A Verifier is safe for concurrent use.
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
//     without regard to case); anything else (an ID token marked as such, a logout token, ...)
//     is refused;
//   - "iss" equals Config.Issuer exactly (no trailing-slash folding);
//   - "exp" is present and not past, "nbf" and "iat", when present, are not in the future,
//     each allowing Config.Leeway of clock skew (default 30 s);
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
// New only validates its Config: nothing is fetched until the first Verify, so serve starts
// even when the IdP is down. The JWKS URL is Config.JWKSURL, else the "jwks_uri" of the
// issuer's RFC 8414 metadata (or, failing that, its OpenID Connect configuration), whose
// "issuer" must equal Config.Issuer exactly. Every URL fetched, redirects included, must be
// https, or http on a loopback host.
//
// Fetches are made at most once every 5 s, shared by concurrent callers, each bounded at 3 s:
// on a kid the JWKS lacks (rotation), and after the JWKS's max-age (clamped to 1 minute – 1
// hour; 10 minutes without one). A token whose kid the keys held have never waits for a
// fetch: keys that are due are refreshed in the background while they keep being used. A
// failed refresh keeps the keys held; while the last fetch failed, a token they do not verify
// is the issuer's failure (an error that is not ErrInvalidToken), not the token's, unless it
// names a kid they hold. A token that passed is cached until its
// "exp" (at most 4096), emptied when the JWKS changes. bearer is a leaf: the go-sdk's auth
// package, go-jose and the standard library. Rationale: docs/design/bearer.md.
package bearer

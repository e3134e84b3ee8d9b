package bearer

import (
	"errors"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// TestRejectedHeaders: header tricks that a key of the issuer's JWKS does not vouch for.
func TestRejectedHeaders(t *testing.T) {
	k := newRSA(t, "k1")
	p := newIDP(t, k)
	v := newVerifier(t, Config{Issuer: p.issuer()}, nil)
	good := goodClaims(p.issuer(), time.Now())
	if _, err := v.Verify(ctx(t), k.sign(t, "", good), resource); err != nil {
		t.Fatal(err)
	}
	signWith := func(key any, alg jose.SignatureAlgorithm, opts *jose.SignerOptions) string {
		sg, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, opts)
		if err != nil {
			t.Fatal(err)
		}
		tok, err := jwt.Signed(sg).Claims(good).Serialize()
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	attacker := newRSA(t, "")
	cases := map[string]string{
		"embedded jwk, no kid": signWith(attacker.key, jose.RS256, (&jose.SignerOptions{EmbedJWK: true})),
		"embedded jwk, issuer's kid": signWith(attacker.key, jose.RS256,
			(&jose.SignerOptions{EmbedJWK: true}).WithHeader("kid", "k1")),
		"unknown crit": signWith(k.key, jose.RS256,
			(&jose.SignerOptions{}).WithHeader("kid", "k1").WithHeader("crit", []string{"x-must"}).WithHeader("x-must", true)),
		"PS256 with a key marked RS256": signWith(k.key, jose.PS256, (&jose.SignerOptions{}).WithHeader("kid", "k1")),
	}
	for name, tok := range cases {
		if _, err := v.Verify(ctx(t), tok, resource); !errors.Is(err, auth.ErrInvalidToken) {
			t.Errorf("%s: err = %v, want ErrInvalidToken", name, err)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}

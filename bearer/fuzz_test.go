package bearer

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// FuzzVerify feeds Verify arbitrary token strings: it must not panic, must not accept any, and
// must not repeat the token in its error. The IdP is started once, and the keys are loaded
// before fuzzing, so that an iteration makes no request (unknown kids refetch at most once per
// 5 s). The seeds are well-formed tokens for another audience, so that mutations reach every
// check and none can be a valid token for the resource asked for.
func FuzzVerify(f *testing.F) {
	k, e := newRSA(f, "k1"), newEC(f, "k2")
	p := newIDP(f, k, e)
	v := newVerifier(f, Config{Issuer: p.issuer()}, nil)
	now := time.Now()
	ctx := context.Background()
	if _, err := v.Verify(ctx, k.sign(f, "", goodClaims(p.issuer(), now)), resource); err != nil {
		f.Fatal(err)
	}
	elsewhere := with(goodClaims(p.issuer(), now), "aud", "https://elsewhere.example/mcp")
	f.Add(k.sign(f, "at+jwt", elsewhere))
	f.Add(e.sign(f, "", with(elsewhere, "scp", []string{"a"})))
	f.Add(k.sign(f, "", with(elsewhere, "exp", nil)))
	f.Add("eyJhbGciOiJub25lIn0.e30.")
	f.Add("")
	f.Add("a.b.c")
	f.Fuzz(func(t *testing.T, token string) {
		info, err := v.Verify(ctx, token, resource)
		if err == nil {
			t.Fatalf("accepted %q: %+v", token, info)
		}
		if !errors.Is(err, auth.ErrInvalidToken) {
			t.Fatalf("not ErrInvalidToken: %v", err)
		}
		if len(token) >= 16 && strings.Contains(err.Error(), token) {
			t.Fatalf("error repeats the token: %v", err)
		}
	})
}

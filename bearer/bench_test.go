package bearer

import (
	"context"
	"testing"
	"time"
)

// BenchmarkVerify measures Verify for a token already verified (a cache hit) and, as
// uncached/cached, how many times dearer the full verification (an RS256 signature check and
// the claims) is; BenchmarkVerifyUncached gives that cost alone.
func BenchmarkVerify(b *testing.B) {
	v, tok := benchSetup(b)
	ctx := context.Background()
	// The uncached cost, measured here so that the ratio comes from one run.
	const n = 500
	for range n / 5 { // warm up
		if _, _, err := v.verify(ctx, tok, resource); err != nil {
			b.Fatal(err)
		}
	}
	start := time.Now()
	for range n {
		if _, _, err := v.verify(ctx, tok, resource); err != nil {
			b.Fatal(err)
		}
	}
	uncached := float64(time.Since(start).Nanoseconds()) / n

	if _, err := v.Verify(ctx, tok, resource); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := v.Verify(ctx, tok, resource); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	cached := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(uncached, "uncached-ns/op")
	b.ReportMetric(uncached/cached, "uncached/cached")
}

func BenchmarkVerifyUncached(b *testing.B) {
	v, tok := benchSetup(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := v.verify(ctx, tok, resource); err != nil {
			b.Fatal(err)
		}
	}
}

func benchSetup(b *testing.B) (*Verifier, string) {
	k := newRSA(b, "k1")
	p := newIDP(b, k)
	v := newVerifier(b, Config{Issuer: p.issuer()}, nil)
	return v, k.sign(b, "at+jwt", goodClaims(p.issuer(), time.Now()))
}

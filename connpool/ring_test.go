package connpool

import (
	"strings"
	"testing"
)

func TestRingKeepsTail(t *testing.T) {
	r := newRing(8)
	r.Write([]byte("abc"))
	if r.String() != "abc" {
		t.Fatalf("%q", r.String())
	}
	r.Write([]byte("defgh"))
	if r.String() != "abcdefgh" {
		t.Fatalf("exactly full: %q", r.String())
	}
	r.Write([]byte("ij"))
	if r.String() != "cdefghij" {
		t.Fatalf("wrapped: %q", r.String())
	}
	r.Write([]byte(strings.Repeat("x", 20) + "12345678"))
	if r.String() != "12345678" {
		t.Fatalf("oversized write: %q", r.String())
	}
	var total strings.Builder
	r2 := newRing(5)
	for i := range 23 {
		s := string(rune('a' + i))
		r2.Write([]byte(s))
		total.WriteString(s)
	}
	if want := total.String()[23-5:]; r2.String() != want {
		t.Fatalf("byte-wise: %q, want %q", r2.String(), want)
	}
}

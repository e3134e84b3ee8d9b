package lane

import (
	"errors"
	"testing"
)

// FuzzParseHead checks ParseHead against net/http: whatever it takes, http.ReadRequest reads
// from the same bytes with the same method, target, Host, fields, Content-Length and body
// start; the proper prefixes of a head it takes are ErrIncomplete; every other answer is
// ErrIncomplete or wraps ErrNotLane, and ErrNotLane stays so when more bytes come.
func FuzzParseHead(f *testing.F) {
	for _, c := range headCases {
		f.Add([]byte(c.in))
		f.Add([]byte(c.in + `{"jsonrpc":"2.0"}`))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var h Head
		if _, err := ParseHead([]byte(undiciHead), &h); err != nil { // a Header to reuse
			t.Fatal(err)
		}
		n, err := ParseHead(b, &h)
		switch {
		case err == ErrIncomplete:
			if len(b) >= MaxHead {
				t.Fatalf("ErrIncomplete for %d bytes, MaxHead is %d", len(b), MaxHead)
			}
			return
		case errors.Is(err, ErrNotLane):
			if n != 0 {
				t.Fatalf("n = %d with %v", n, err)
			}
			more := append(b[:len(b):len(b)], "\r\n\r\n"...)
			if _, err := ParseHead(more, &h); !errors.Is(err, ErrNotLane) {
				t.Fatalf("ParseHead(%q) is not the lane's, with CRLF CRLF after it: %v", b, err)
			}
			return
		case err != nil:
			t.Fatalf("ParseHead: %v, neither ErrIncomplete nor ErrNotLane", err)
		}
		if n <= 0 || n > len(b) || n > MaxHead {
			t.Fatalf("n = %d for %d bytes", n, len(b))
		}
		if d := readRequestDiff(b, n, &h); d != "" {
			t.Fatal(d)
		}
		for _, k := range []int{0, 1, n / 2, n - 2, n - 1} {
			if _, err := ParseHead(b[:max(k, 0)], &h); err != ErrIncomplete {
				t.Fatalf("ParseHead of the first %d bytes of a head of %d: %v, want ErrIncomplete", k, n, err)
			}
		}
	})
}

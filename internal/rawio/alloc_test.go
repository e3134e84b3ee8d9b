package rawio

import (
	"io"
	"testing"
)

// A read, a write and Idle allocate nothing: they are on every call the hop passes through.
func TestNoAllocations(t *testing.T) {
	c, peer := tcpPair(t)
	r, w := pipe(t)
	msg := []byte("a message of some length\n")
	buf := make([]byte, 64)
	for _, tc := range []struct {
		name string
		w    io.Writer
		r    io.Reader
	}{{"conn write", c, peer}, {"conn read", peer, c}, {"pipe", w, r}} {
		if n := testing.AllocsPerRun(100, func() {
			if _, err := tc.w.Write(msg); err != nil {
				t.Fatal(err)
			}
			if _, err := io.ReadFull(tc.r, buf[:len(msg)]); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("%s: %v allocations per write and read, want 0", tc.name, n)
		}
	}
	if n := testing.AllocsPerRun(100, func() {
		if !Idle(c) {
			t.Fatal("an open connection with nothing to read is not idle")
		}
	}); n != 0 {
		t.Errorf("Idle: %v allocations, want 0", n)
	}
}

package writestall

import (
	"io"
	"net"
	"testing"
	"time"
)

// BenchmarkWrite: a 512-byte write to a loopback TCP connection its peer reads, on the raw
// connection and on one of Listen; the difference is the per-write cost of the bound.
func BenchmarkWrite(b *testing.B) {
	for _, tc := range []struct {
		name string
		wrap func(net.Listener) net.Listener
	}{
		{"raw", func(ln net.Listener) net.Listener { return ln }},
		{"bounded", func(ln net.Listener) net.Listener { return Listen(ln, 30*time.Second) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			c, nc := pair(b, tc.wrap, nil)
			drained := make(chan struct{})
			go func() { defer close(drained); _, _ = io.Copy(io.Discard, nc) }()
			p := make([]byte, 512)
			b.SetBytes(int64(len(p)))
			for b.Loop() {
				if _, err := c.Write(p); err != nil {
					b.Fatal(err)
				}
			}
			c.Close()
			<-drained
			nc.Close()
		})
	}
}

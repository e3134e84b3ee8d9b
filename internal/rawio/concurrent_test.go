package rawio

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"net"
	"sync"
	"testing"
)

// Reads at once, one waiting on the poller and the others for it, all end when the connection
// or the file is closed, with the error of the net or os package's.
func TestConcurrentReadsEndAtClose(t *testing.T) {
	c, _ := tcpPair(t)
	r, _ := pipe(t)
	for _, tc := range []struct {
		name string
		r    io.ReadCloser
		want error
	}{{"conn", c, net.ErrClosed}, {"pipe", r, fs.ErrClosed}} {
		errs := make(chan error, 3)
		for range 3 {
			go func() {
				_, err := tc.r.Read(make([]byte, 8))
				errs <- err
			}()
		}
		tc.r.Close()
		for range 3 {
			if err := <-errs; !errors.Is(err, tc.want) {
				t.Fatalf("%s: a read that Close ended: %v, not %v", tc.name, err, tc.want)
			}
		}
	}
}

// Writes at once, each many times the buffers, do not interleave: each is written whole, as
// the net and os packages' are.
func TestConcurrentWritesWhole(t *testing.T) {
	c, peer := tcpPair(t)
	r, w := pipe(t)
	for _, tc := range []struct {
		name string
		w    io.WriteCloser
		r    io.Reader
	}{{"conn", c, peer}, {"pipe", w, r}} {
		const writers, size = 4, 1 << 20
		got := make(chan []byte, 1)
		go func() {
			b, _ := io.ReadAll(tc.r)
			got <- b
		}()
		var wg sync.WaitGroup
		for i := range writers {
			wg.Go(func() {
				if _, err := tc.w.Write(bytes.Repeat([]byte{'a' + byte(i)}, size)); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		tc.w.Close()
		b := <-got
		if len(b) != writers*size {
			t.Fatalf("%s: read %d bytes, want %d", tc.name, len(b), writers*size)
		}
		for k := range writers {
			if block := b[k*size : (k+1)*size]; bytes.Count(block, block[:1]) != size {
				t.Fatalf("%s: the writes interleaved in block %d", tc.name, k)
			}
		}
	}
}

package rawio

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"testing"
)

// A read or write of nothing is what the net package's is: 0 and no error on an open
// connection, net.ErrClosed after Close.
func TestConnEmptyAfterClose(t *testing.T) {
	c, _ := tcpPair(t)
	plain, _ := tcpPairPlain(t)
	for _, op := range []struct {
		name string
		do   func(net.Conn) (int, error)
	}{{"read", func(c net.Conn) (int, error) { return c.Read(nil) }}, {"write", func(c net.Conn) (int, error) { return c.Write(nil) }}} {
		if n, err := op.do(c); n != 0 || err != nil {
			t.Fatalf("%s of nothing: %d, %v; want 0, nil", op.name, n, err)
		}
	}
	c.Close()
	plain.Close()
	_, err := c.Read(nil)
	_, plainErr := plain.Read(nil)
	sameError(t, "read of nothing after Close", err, plainErr)
	if !errors.Is(err, net.ErrClosed) {
		t.Fatalf("read of nothing after Close: %v, not net.ErrClosed", err)
	}
	_, err = c.Write(nil)
	_, plainErr = plain.Write(nil)
	sameError(t, "write of nothing after Close", err, plainErr)
}

// A File's read of nothing after Close fails as *os.File's does.
func TestFileEmptyAfterClose(t *testing.T) {
	r, _ := pipe(t)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()
	if n, err := r.Read(nil); n != 0 || err != nil {
		t.Fatalf("read of nothing: %d, %v; want 0, nil", n, err)
	}
	r.Close()
	pr.Close()
	_, err = r.Read(nil)
	_, plainErr := pr.Read(nil)
	samePathError(t, "read of nothing after Close", err, plainErr)
	if !errors.Is(err, fs.ErrClosed) {
		t.Fatalf("read of nothing after Close: %v, not fs.ErrClosed", err)
	}
}

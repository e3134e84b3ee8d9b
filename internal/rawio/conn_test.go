package rawio

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// tcpPair returns the two ends of a loopback TCP connection: c accepted through Listen, peer
// dialled plainly.
func tcpPair(t *testing.T) (c, peer net.Conn) { return tcpPairThrough(t, Listen) }

// tcpPairPlain is tcpPair without the package.
func tcpPairPlain(t *testing.T) (c, peer net.Conn) {
	return tcpPairThrough(t, func(ln net.Listener) net.Listener { return ln })
}

// tcpPairThrough is tcpPair with c accepted through wrap of the listener.
func tcpPairThrough(t *testing.T, wrap func(net.Listener) net.Listener) (c, peer net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	rl := wrap(ln)
	type accepted struct {
		c   net.Conn
		err error
	}
	ch := make(chan accepted, 1)
	go func() {
		c, err := rl.Accept()
		ch <- accepted{c, err}
	}()
	peer, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	a := <-ch
	if a.err != nil {
		t.Fatal(a.err)
	}
	t.Cleanup(func() { a.c.Close(); peer.Close() })
	return a.c, peer
}

// wantRaw fails unless c is the package's wrapper where the package makes raw calls.
func wantRaw(t *testing.T, c net.Conn) {
	t.Helper()
	_, ok := c.(*conn)
	if ok != (runtime.GOOS == "linux") {
		t.Fatalf("Listen's connection is %T on %s", c, runtime.GOOS)
	}
}

func TestConnReadsAndWrites(t *testing.T) {
	c, peer := tcpPair(t)
	wantRaw(t, c)
	if _, err := peer.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	n, err := c.Read(buf)
	if err != nil || string(buf[:n]) != "ping" {
		t.Fatalf("Read: %q, %v", buf[:n], err)
	}
	if n, err := c.Read(nil); n != 0 || err != nil {
		t.Fatalf("Read of nothing: %d, %v; want 0, nil", n, err)
	}
	if _, err := c.Write([]byte("pong")); err != nil {
		t.Fatal(err)
	}
	n, err = peer.Read(buf)
	if err != nil || string(buf[:n]) != "pong" {
		t.Fatalf("peer Read: %q, %v", buf[:n], err)
	}
}

// A write larger than the socket's buffers waits for room and a read for data, on the
// runtime's poller: all of it arrives, in order, both ways.
func TestConnWaits(t *testing.T) {
	c, peer := tcpPair(t)
	big := bytes.Repeat([]byte("0123456789abcdef"), 4<<20) // 64 MiB: many times the buffers
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(peer)
		got <- b
	}()
	n, err := c.Write(big)
	if err != nil || n != len(big) {
		t.Fatalf("Write: %d, %v; want %d, nil", n, err, len(big))
	}
	if err := c.(interface{ CloseWrite() error }).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	if b := <-got; !bytes.Equal(b, big) {
		t.Fatalf("the peer read %d bytes, not the %d written in order", len(b), len(big))
	}

	go func() {
		peer.Write(big)
		peer.Close()
	}()
	b, err := io.ReadAll(c) // in reads of at most 512 bytes at first: most find nothing and wait
	if err != nil || !bytes.Equal(b, big) {
		t.Fatalf("read %d bytes (%v), not the %d written in order", len(b), err, len(big))
	}
}

// The errors are those of the net package's connections.
func TestConnErrors(t *testing.T) {
	c, peer := tcpPair(t)
	plain, plainPeer := tcpPairPlain(t)

	c.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
	plain.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
	_, err := c.Read(make([]byte, 8))
	_, plainErr := plain.Read(make([]byte, 8))
	sameError(t, "read past the deadline", err, plainErr)
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past the deadline: %v, not a timeout", err)
	}

	// A write that cannot finish by its deadline reports what it wrote.
	big := make([]byte, 256<<20) // many times the buffers
	n, err := stalledWrite(t, c, peer, big)
	if n == 0 || n == len(big) || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a write to a peer not reading, past its deadline: %d, %v", n, err)
	}
	_, plainErr = stalledWrite(t, plain, plainPeer, big)
	sameError(t, "write past the deadline", err, plainErr)

	c.Close()
	plain.Close()
	_, err = c.Read(make([]byte, 8))
	_, plainErr = plain.Read(make([]byte, 8))
	sameError(t, "read after Close", err, plainErr)
	if !errors.Is(err, net.ErrClosed) {
		t.Fatalf("read after Close: %v, not net.ErrClosed", err)
	}
	_, err = c.Write([]byte("x"))
	_, plainErr = plain.Write([]byte("x"))
	sameError(t, "write after Close", err, plainErr)
}

// stalledWrite writes p to c, whose peer reads one byte of it and no more, and ends the write
// with a deadline in the past once that byte has arrived: the write was under way.
func stalledWrite(t *testing.T, c, peer net.Conn, p []byte) (int, error) {
	t.Helper()
	type result struct {
		n   int
		err error
	}
	done := make(chan result, 1)
	go func() {
		n, err := c.Write(p)
		done <- result{n, err}
	}()
	if _, err := io.ReadFull(peer, make([]byte, 1)); err != nil {
		t.Fatal(err)
	}
	c.SetWriteDeadline(time.Unix(1, 0))
	r := <-done
	return r.n, r.err
}

// What the peer wrote before it closed is read, then io.EOF; a write to a peer gone fails as
// the net package's does (a broken pipe or a reset, inside a *net.OpError).
func TestConnEnd(t *testing.T) {
	c, peer := tcpPair(t)
	peer.Write([]byte("last"))
	peer.Close()
	b, err := io.ReadAll(c)
	if err != nil || string(b) != "last" {
		t.Fatalf("reading to the end: %q, %v", b, err)
	}
	if n, err := c.Read(make([]byte, 8)); n != 0 || err != io.EOF {
		t.Fatalf("read at the end: %d, %v; want 0, io.EOF", n, err)
	}
	for i := 0; ; i++ { // the first write may go out before the reset comes back
		_, err := c.Write([]byte("x"))
		if err == nil && i < 1000 {
			continue
		}
		var oe *net.OpError
		if !errors.As(err, &oe) || oe.Op != "write" || !(errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET)) {
			t.Fatalf("a write to a peer gone: %#v", err)
		}
		break
	}
}

// A Read waiting when the connection is closed (or begun after) ends with net.ErrClosed.
func TestConnCloseEndsRead(t *testing.T) {
	c, _ := tcpPair(t)
	done := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 8))
		done <- err
	}()
	c.Close()
	if err := <-done; !errors.Is(err, net.ErrClosed) {
		t.Fatalf("a read that Close ended: %v, not net.ErrClosed", err)
	}
}

// sameError fails unless err and want are of one type with one Op and one error inside.
func sameError(t *testing.T, what string, err, want error) {
	t.Helper()
	var oe, woe *net.OpError
	if !errors.As(err, &oe) || !errors.As(want, &woe) {
		t.Fatalf("%s: %T %v; the net package's: %T %v", what, err, err, want, want)
	}
	if oe.Op != woe.Op || oe.Net != woe.Net || errors.Unwrap(oe) == nil || oe.Err.Error() != woe.Err.Error() {
		t.Fatalf("%s: %#v; the net package's: %#v", what, oe, woe)
	}
}

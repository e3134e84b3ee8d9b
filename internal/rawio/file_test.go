package rawio

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"runtime"
	"syscall"
	"testing"

	"github.com/agentpool/agentpool/internal/testwait"
)

// pipe returns the two ends of a pipe, both Files.
func pipe(t *testing.T) (r, w *File) {
	t.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r, w = NewFile(pr), NewFile(pw)
	if r.raw() != (runtime.GOOS == "linux") || w.raw() != (runtime.GOOS == "linux") {
		t.Fatalf("a pipe's ends make raw calls: %v, %v, on %s", r.raw(), w.raw(), runtime.GOOS)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

// A pipe's writes wait for room and its reads for data: all of it arrives, in order; then the
// read end reads io.EOF.
func TestFileReadsAndWrites(t *testing.T) {
	r, w := pipe(t)
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<20) // 16 MiB: many times a pipe's buffer
	go func() {
		w.Write(big)
		w.Close()
	}()
	b, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(b, big) {
		t.Fatalf("read %d bytes (%v), not the %d written in order", len(b), err, len(big))
	}
	if n, err := r.Read(make([]byte, 8)); n != 0 || err != io.EOF {
		t.Fatalf("read at the end: %d, %v; want 0, io.EOF", n, err)
	}
}

// The errors are those of *os.File: closing is fs.ErrClosed, a write with no reader left is
// EPIPE, each inside a *fs.PathError of the op and the file's name.
func TestFileErrors(t *testing.T) {
	r, w := pipe(t)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()

	// A read a Close ends, or one after it.
	done := make(chan error, 1)
	go func() {
		_, err := r.Read(make([]byte, 8))
		done <- err
	}()
	r.Close()
	pr.Close()
	err = <-done
	_, plainErr := pr.Read(make([]byte, 8))
	samePathError(t, "read that Close ended", err, plainErr)
	if !errors.Is(err, fs.ErrClosed) {
		t.Fatalf("read that Close ended: %v, not fs.ErrClosed", err)
	}

	// The read end is gone.
	_, err = w.Write([]byte("x"))
	_, plainErr = pw.Write([]byte("x"))
	samePathError(t, "write with no reader", err, plainErr)
	if !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("write with no reader: %v, not EPIPE", err)
	}

	w.Close()
	pw.Close()
	_, err = w.Write([]byte("x"))
	_, plainErr = pw.Write([]byte("x"))
	samePathError(t, "write after Close", err, plainErr)
	if !errors.Is(err, fs.ErrClosed) {
		t.Fatalf("write after Close: %v, not fs.ErrClosed", err)
	}
}

// samePathError fails unless err and want are *fs.PathErrors of one Op with errors inside
// that read the same.
func samePathError(t *testing.T, what string, err, want error) {
	t.Helper()
	var pe, wpe *fs.PathError
	if !errors.As(err, &pe) || !errors.As(want, &wpe) || pe.Op != wpe.Op || pe.Path != wpe.Path || pe.Err.Error() != wpe.Err.Error() {
		t.Fatalf("%s: %#v; *os.File's: %#v", what, err, want)
	}
}

// A descriptor in blocking mode would hold its thread in a raw read: it is left to os.
func TestBlockingIsNotRaw(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	_ = pr.Fd() // makes it blocking
	f := NewFile(pr)
	if f.raw() {
		t.Fatal("a blocking pipe got raw calls")
	}
	pw.Write([]byte("still read"))
	b := make([]byte, 16)
	n, err := f.Read(b)
	if err != nil || string(b[:n]) != "still read" {
		t.Fatalf("Read through os: %q, %v", b[:n], err)
	}
}

// Idle tells an open connection with nothing to read from one with something to read, one the
// peer closed, and one closed here.
func TestIdle(t *testing.T) {
	c, peer := tcpPair(t)
	plain, plainPeer := tcpPairPlain(t)
	for _, tc := range []struct {
		name    string
		c, peer net.Conn
	}{{"raw", c, peer}, {"plain", plain, plainPeer}} {
		if !Idle(tc.c) {
			t.Fatalf("%s: an open connection with nothing to read is not idle", tc.name)
		}
		tc.peer.Write([]byte("x"))
		testwait.For(t, "the byte written to arrive", func() bool { return !Idle(tc.c) })
		tc.c.Read(make([]byte, 1))
		if !Idle(tc.c) {
			t.Fatalf("%s: idle again once read", tc.name)
		}
		tc.peer.Close()
		testwait.For(t, "the peer's close to arrive", func() bool { return !Idle(tc.c) })
		tc.c.Close()
		if Idle(tc.c) {
			t.Fatalf("%s: a closed connection is idle", tc.name)
		}
	}
}

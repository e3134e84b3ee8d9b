// Package conntest checks, in tests, that a net.Conn wrapper keeps what the raw connection
// does for its users.
package conntest

import (
	"io"
	"net"
	"testing"
)

// HalfClose checks that server half-closes as a TCP connection does: it has CloseWrite, after
// which client reads what server wrote, then the end, and server still reads what client
// writes. net/http closes the writing side first so that a client reads its last answer before
// the connection ends.
func HalfClose(t testing.TB, server, client net.Conn) {
	t.Helper()
	cw, ok := server.(interface{ CloseWrite() error })
	if !ok {
		t.Fatalf("%T has no CloseWrite", server)
	}
	if _, err := server.Write([]byte("bye")); err != nil {
		t.Fatal(err)
	}
	if err := cw.CloseWrite(); err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(client); err != nil || string(got) != "bye" {
		t.Fatalf("the client read %q, %v; want \"bye\" then the end", got, err)
	}
	if _, err := client.Write([]byte("still")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 5)
	if _, err := io.ReadFull(server, buf); err != nil || string(buf) != "still" {
		t.Fatalf("the server read %q, %v after its half-close; want \"still\"", buf, err)
	}
}

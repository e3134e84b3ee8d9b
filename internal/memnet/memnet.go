// Package memnet is a network in memory for tests: a net.Listener whose connections are
// net.Pipe pairs, and an httptest.Server on one. A testing/synctest bubble can wait on a
// pipe, where it cannot wait on a socket (the runtime's network poller is outside any
// bubble), so HTTP clients and servers run in a bubble with a fake clock over it.
package memnet

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Listener is a net.Listener of in-memory connections: Dial makes a pipe and Accept
// returns its other end. Close is idempotent; Dial and Accept then fail with net.ErrClosed.
type Listener struct {
	conns chan net.Conn
	once  sync.Once
	done  chan struct{}
}

// Listen returns a new Listener.
func Listen() *Listener {
	return &Listener{conns: make(chan net.Conn), done: make(chan struct{})}
}

// Dial connects to l, whatever network and address it is given; its signature is
// http.Transport.DialContext's. It blocks until l accepts, l is closed or ctx ends.
func (l *Listener) Dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
	case <-ctx.Done():
	}
	client.Close()
	server.Close()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return nil, &net.OpError{Op: "dial", Net: "pipe", Err: net.ErrClosed}
}

// Accept returns the server end of the next connection Dial makes.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close stops l accepting.
func (l *Listener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

// Addr is 127.0.0.1:80, a loopback address, so that a server on l has a loopback URL (OAuth
// allows plain http there). Connections reach l only through Dial, whatever the address.
func (l *Listener) Addr() net.Addr { return addr{} }

type addr struct{}

func (addr) Network() string { return "pipe" }
func (addr) String() string  { return "127.0.0.1:80" }

// NewServer starts h on a new Listener, closed at t's cleanup (which waits for its
// handlers, so the clients must have closed their connections by then). The server's
// Client dials it; other clients use Dial.
func NewServer(t testing.TB, h http.Handler) (*httptest.Server, *Listener) {
	l := Listen()
	srv := &httptest.Server{Listener: l, Config: &http.Server{Handler: h}}
	srv.Start()
	srv.Client().Transport.(*http.Transport).DialContext = l.Dial
	t.Cleanup(srv.Close)
	return srv, l
}

package lane

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"
)

// rvCall answers 200 with its body, once release (when not nil) is closed.
type rvCall struct {
	body    string
	release chan struct{}
}

func (c rvCall) Serve(ctx context.Context, w *Writer) {
	if c.release != nil {
		<-c.release
	}
	_ = w.Write(http.StatusOK, nil, []byte(c.body))
}

// rvTake takes every request; its call answers with the request's body, after release.
func rvTake(release chan struct{}) func(*http.Request, []byte) (Call, bool) {
	return func(_ *http.Request, body []byte) (Call, bool) {
		return rvCall{body: string(body), release: release}, true
	}
}

// A request that begins arriving while a call is in flight and arrives in more than one
// piece: the connection's goroutine looks at the time of the last activity, which the call's
// goroutine sets when it has answered (run with -race).
func TestPipelinedPartialRequestNoRace(t *testing.T) {
	release := make(chan struct{})
	l := New(Options{Take: rvTake(release), IdleTimeout: time.Minute})
	cli, server := net.Pipe()
	l.Serve(server, nil)
	c := &client{t: t, nc: cli, br: bufio.NewReader(cli)}
	req2 := rawPost("/mcp", "two")
	c.write(rawPost("/mcp", "one") + req2[:10])
	close(release)
	if _, got := c.read(); got != "one" {
		t.Fatalf("first answer %q, want %q", got, "one")
	}
	c.write(req2[10:20]) // still no whole head: the lane reads on
	c.write(req2[20:])
	if _, got := c.read(); got != "two" {
		t.Fatalf("second answer %q, want %q", got, "two")
	}
	cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := l.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
}

// rvHalfClose records whether its connection was half-closed (CloseWrite).
type rvHalfClose struct {
	*net.TCPConn
	closedWrite atomic.Bool
}

func (c *rvHalfClose) CloseWrite() error {
	c.closedWrite.Store(true)
	return c.TCPConn.CloseWrite()
}

// A connection handed back to net/http keeps its CloseWrite, with which net/http ends a
// connection whose request it did not read whole (closeWriteAndWait: a body over a
// MaxBytesReader's limit, 413), so that the client reads the answer before the close resets
// the connection.
func TestHandedBackKeepsCloseWrite(t *testing.T) {
	l := New(Options{Take: func(*http.Request, []byte) (Call, bool) { return nil, false }})
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1)); err != nil {
			http.Error(w, "too large", http.StatusRequestEntityTooLarge)
		}
	})}
	served := make(chan struct{})
	go func() { _ = srv.Serve(l.Listen(inner)); close(served) }()
	defer func() { _ = srv.Close(); <-served }()

	side, err := net.Listen("tcp", "127.0.0.1:0") // the lane's connection comes from here
	if err != nil {
		t.Fatal(err)
	}
	defer side.Close()
	cli, err := net.Dial("tcp", side.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	nc, err := side.Accept()
	if err != nil {
		t.Fatal(err)
	}
	rec := &rvHalfClose{TCPConn: nc.(*net.TCPConn)}
	l.Serve(rec, nil)
	c := &client{t: t, nc: cli, br: bufio.NewReader(cli)}
	c.write(rawPost("/mcp", "{}"))
	if _, got := c.read(); got != "too large\n" {
		t.Fatalf("answer %q", got)
	}
	if _, err := c.br.ReadByte(); err != io.EOF {
		t.Fatalf("after the answer: %v, want EOF", err)
	}
	if !rec.closedWrite.Load() {
		t.Error("net/http closed the handed-back connection without CloseWrite")
	}
}

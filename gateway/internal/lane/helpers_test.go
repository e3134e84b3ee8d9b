package lane

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/testwait"
)

// A callFunc is a Call.
type callFunc func(ctx context.Context, w *Writer)

func (f callFunc) Serve(ctx context.Context, w *Writer) { f(ctx, w) }

// echo answers 200 with the header line "X-Lane: 1" and the request's body.
func echo(body []byte) Call {
	return callFunc(func(_ context.Context, w *Writer) { _ = w.Write(http.StatusOK, []byte("X-Lane: 1\r\n"), body) })
}

// takeLane takes the POSTs to /lane and answers them with echo.
func takeLane(r *http.Request, body []byte) (Call, bool) {
	if r.URL.Path != "/lane" {
		return nil, false
	}
	return echo(body), true
}

// spyConn records whether the lane closed it.
type spyConn struct {
	net.Conn
	closed atomic.Bool
}

func (c *spyConn) Close() error {
	c.closed.Store(true)
	return c.Conn.Close()
}

// server is a real http.Server on 127.0.0.1 serving l.Listen: its handler echoes a request
// (header X-Net: 1, X-Method, X-Test echoed, the body) and then, unless the request has
// X-Stay, hijacks the connection to the lane as the gateway does.
type server struct {
	l       *Lane
	ln      net.Listener // l.Listen's
	addr    string
	hijacks atomic.Int32
	served  chan error // srv.Serve's result
}

func newServer(t *testing.T, opts Options) *server {
	t.Helper()
	if opts.Take == nil {
		opts.Take = takeLane
	}
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &server{l: New(opts), addr: inner.Addr().String(), served: make(chan error, 1)}
	s.ln = s.l.Listen(inner)
	srv := &http.Server{Handler: http.HandlerFunc(s.handle)}
	go func() { s.served <- srv.Serve(s.ln) }()
	t.Cleanup(func() {
		srv.Close()
		if err := <-s.served; err != nil && !errors.Is(err, http.ErrServerClosed) && !errors.Is(err, net.ErrClosed) {
			t.Errorf("http.Server.Serve: %v", err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.l.Shutdown(ctx); err != nil {
			t.Errorf("lane Shutdown: %v", err)
		}
	})
	return s
}

func (s *server) handle(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	h := w.Header()
	h.Set("X-Net", "1")
	h.Set("X-Method", r.Method)
	h.Set("X-Test", r.Header.Get("X-Test"))
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.Write(body)
	if r.Header.Get("X-Stay") != "" || r.Close {
		return
	}
	rc := http.NewResponseController(w)
	if rc.Flush() != nil {
		return
	}
	nc, rw, err := rc.Hijack()
	if err != nil {
		return
	}
	s.hijacks.Add(1)
	s.l.Serve(nc, rw.Reader)
}

// client is a raw connection to a server.
type client struct {
	t  *testing.T
	nc net.Conn
	br *bufio.Reader
}

func dial(t *testing.T, addr string) *client {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(testwait.Timeout)) // a lost answer fails the test, not the run
	return &client{t: t, nc: nc, br: bufio.NewReader(nc)}
}

func (c *client) write(s string) {
	c.t.Helper()
	if _, err := io.WriteString(c.nc, s); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// read reads an answer and its body.
func (c *client) read() (*http.Response, string) {
	c.t.Helper()
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		c.t.Fatalf("read answer: %v", err)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatalf("read body: %v", err)
	}
	return resp, string(b)
}

// wantEOF fails unless the connection is closed with nothing more to read.
func (c *client) wantEOF() {
	c.t.Helper()
	b, err := c.br.ReadByte()
	if err != io.EOF {
		c.t.Fatalf("read %q, %v; want EOF (the connection closed)", b, err)
	}
}

// post is a POST of body to path with Content-Length.
func rawPost(path, body string, header ...string) string {
	s := "POST " + path + " HTTP/1.1\r\nHost: example.test\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n"
	for _, h := range header {
		s += h + "\r\n"
	}
	return s + "\r\n" + body
}

package httpcall

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentpool/agentpool/internal/testwait"
)

// server is an HTTP/1.1 server counting the connections it accepted and closed.
type server struct {
	*httptest.Server
	opened, closed atomic.Int64
}

func newServer(t *testing.T, h http.HandlerFunc) *server {
	t.Helper()
	s := &server{Server: httptest.NewUnstartedServer(h)}
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew:
			s.opened.Add(1)
		case http.StateClosed:
			s.closed.Add(1)
		}
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

func newTransport(t *testing.T, s *server) *Transport {
	u, _ := url.Parse(s.URL)
	tr := &Transport{Scheme: u.Scheme, Host: u.Host, Fallback: http.DefaultTransport, MaxIdle: 4}
	t.Cleanup(tr.CloseIdleConnections)
	return tr
}

func post(t *testing.T, tr *Transport, ctx context.Context, u, body string) (string, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := tr.RoundTrip(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// Requests one after another share one connection, whatever frames the answer: a length, a
// chunked body (an event stream that the handler flushes), or no body at all.
func TestKeepsConnection(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		switch string(b) {
		case "chunked":
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: one\n\n")
			w.(http.Flusher).Flush()
			io.WriteString(w, "data: two\n\n")
		case "empty":
			w.WriteHeader(http.StatusAccepted)
		default:
			io.WriteString(w, "echo "+string(b))
		}
	})
	tr := newTransport(t, s)
	want := map[string]string{"chunked": "data: one\n\ndata: two\n\n", "empty": "", "x": "echo x"}
	for range 5 {
		for _, in := range []string{"chunked", "empty", "x"} {
			got, err := post(t, tr, context.Background(), s.URL, in)
			if err != nil || got != want[in] {
				t.Fatalf("%s: %q, %v; want %q", in, got, err, want[in])
			}
		}
	}
	if n := s.opened.Load(); n != 1 {
		t.Fatalf("15 requests opened %d connections, want 1", n)
	}
}

// A connection the server closed while it was idle is not used: the next request gets a new
// one instead of an error.
func TestDropsConnectionServerClosed(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	tr := newTransport(t, s)
	if _, err := post(t, tr, context.Background(), s.URL, "a"); err != nil {
		t.Fatal(err)
	}
	s.CloseClientConnections()
	testwait.For(t, "the server to close the connection", func() bool { return s.closed.Load() > 0 })
	got, err := post(t, tr, context.Background(), s.URL, "b")
	if err != nil || got != "ok" {
		t.Fatalf("after the server closed the idle connection: %q, %v", got, err)
	}
}

// A request whose context ends while it waits for the answer returns at once with the
// context's error, and its connection is closed, not kept.
func TestContextEndsRequest(t *testing.T) {
	release := make(chan struct{})
	arrived := make(chan struct{}, 1)
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			io.ReadAll(r.Body) // then the server watches the connection: its close ends r's context
			arrived <- struct{}{}
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
		io.WriteString(w, "ok")
	})
	defer close(release)
	tr := newTransport(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := post(t, tr, ctx, s.URL+"/slow", "x")
		errc <- err
	}()
	<-arrived // the request was sent: the answer is being waited for
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled request: %v, want context.Canceled", err)
	}
	testwait.For(t, "the server to see the cancelled request's connection closed", func() bool { return s.closed.Load() == 1 })
	if got, err := post(t, tr, context.Background(), s.URL, "y"); err != nil || got != "ok" {
		t.Fatalf("next request: %q, %v", got, err)
	}
	if n := s.opened.Load(); n != 2 {
		t.Fatalf("%d connections, want 2 (the cancelled request's is not reused)", n)
	}
}

// A body closed before its end closes its connection; requests to another origin go to the
// fallback.
func TestEarlyCloseAndFallback(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, strings.Repeat("x", 1<<16)) })
	other := newServer(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "other") })
	tr := newTransport(t, s)
	req, _ := http.NewRequest(http.MethodGet, s.URL, nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got, err := post(t, tr, context.Background(), s.URL, "z"); err != nil || len(got) != 1<<16 {
		t.Fatalf("after an early close: %d bytes, %v", len(got), err)
	}
	if n := s.opened.Load(); n != 2 {
		t.Fatalf("%d connections, want 2 (the early-closed one is not reused)", n)
	}
	if got, err := post(t, tr, context.Background(), other.URL, "w"); err != nil || got != "other" {
		t.Fatalf("another origin: %q, %v", got, err)
	}
	if n := other.opened.Load(); n != 1 {
		t.Fatalf("another origin: %d connections", n)
	}
}

// After CloseIdleConnections no connection is kept, also one in use at the time.
func TestCloseIdleConnections(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	tr := newTransport(t, s)
	req, _ := http.NewRequest(http.MethodGet, s.URL, nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	tr.CloseIdleConnections()
	io.ReadAll(resp.Body)
	resp.Body.Close()
	tr.mu.Lock()
	n := len(tr.idle)
	tr.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d idle connections kept after CloseIdleConnections", n)
	}
}

// A host without a port is dialled on port 80, an IPv6 literal too.
func TestDialsDefaultPort(t *testing.T) {
	for host, want := range map[string]string{"example.test": "example.test:80", "[::1]": "[::1]:80", "[::1]:8080": "[::1]:8080"} {
		var got string
		tr := &Transport{Scheme: "http", Host: host, Fallback: http.DefaultTransport,
			Dial: func(_ context.Context, _, addr string) (net.Conn, error) {
				got = addr
				return nil, errors.New("not dialled")
			}}
		req, _ := http.NewRequest(http.MethodGet, "http://"+host+"/", nil)
		if _, err := tr.RoundTrip(req); err == nil || got != want {
			t.Errorf("host %s: dialled %q (%v), want %q", host, got, err, want)
		}
	}
}

// A response whose header does not end within net/http's limit (10 MB) is an error, not
// read on into memory for as long as the server sends it.
func TestHeaderLimit(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		go io.Copy(io.Discard, c)
		line := "X-Filler: " + strings.Repeat("a", 1000) + "\r\n"
		io.WriteString(c, "HTTP/1.1 200 OK\r\n")
		for range (maxHeaderBytes / len(line)) + 2 {
			if _, err := io.WriteString(c, line); err != nil {
				return
			}
		}
		io.WriteString(c, "Content-Length: 2\r\n\r\nok")
	}()
	tr := &Transport{Scheme: "http", Host: ln.Addr().String(), Fallback: http.DefaultTransport}
	defer tr.CloseIdleConnections()
	got, err := post(t, tr, context.Background(), "http://"+ln.Addr().String()+"/", "x")
	if err == nil || !strings.Contains(err.Error(), "header") {
		t.Fatalf("a response header past %d bytes: %q, %v; want an error naming the header", maxHeaderBytes, got, err)
	}
}

// A response that is not HTTP/1.1 is an error naming what was wrong, and its connection is
// not used again: the next request is answered on a new one.
func TestMalformedResponse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n := accepted.Add(1)
			go func() {
				defer c.Close()
				br := make([]byte, 4096)
				c.Read(br)
				if n == 1 {
					io.WriteString(c, "SMTP ready\r\n\r\n")
					io.Copy(io.Discard, c)
					return
				}
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
			}()
		}
	}()
	tr := &Transport{Scheme: "http", Host: ln.Addr().String(), Fallback: http.DefaultTransport}
	defer tr.CloseIdleConnections()
	u := "http://" + ln.Addr().String() + "/"
	if got, err := post(t, tr, context.Background(), u, "x"); err == nil || !strings.Contains(err.Error(), "malformed HTTP") {
		t.Fatalf("a response that is not HTTP: %q, %v; want an error naming the malformed response", got, err)
	}
	if got, err := post(t, tr, context.Background(), u, "x"); err != nil || got != "ok" {
		t.Fatalf("the request after a malformed response: %q, %v", got, err)
	}
	if n := accepted.Load(); n != 2 {
		t.Fatalf("%d connections, want 2: the malformed one must not be reused", n)
	}
}

// Only a 1xx response other than 101 is informational and skipped: one of a status below
// 100 (which net/http reads, "099" or "+99") is the answer, as net/http's Transport returns it.
func TestStatusBelow100IsTheAnswer(t *testing.T) {
	host, _ := rawServer(t, "HTTP/1.1 099 Odd\r\nContent-Length: 2\r\n\r\nok")
	tr := &Transport{Scheme: "http", Host: host, Fallback: http.DefaultTransport}
	defer tr.CloseIdleConnections()
	req, _ := http.NewRequest(http.MethodGet, "http://"+host+"/", nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatalf("a response of status 099: %v", err)
	}
	defer resp.Body.Close()
	if b, _ := io.ReadAll(resp.Body); resp.StatusCode != 99 || string(b) != "ok" {
		t.Fatalf("status %d, body %q; want 99, ok", resp.StatusCode, b)
	}
}

// A connection that answered 101 Switching Protocols speaks another protocol after it: it is
// not used for another request.
func TestSwitchedConnectionNotKept(t *testing.T) {
	host, accepted := rawServer(t, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: x\r\n\r\n")
	tr := &Transport{Scheme: "http", Host: host, Fallback: http.DefaultTransport}
	defer tr.CloseIdleConnections()
	for range 2 {
		req, _ := http.NewRequest(http.MethodGet, "http://"+host+"/", nil)
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if n := accepted.Load(); n != 2 {
		t.Fatalf("%d connections for two upgrades, want 2", n)
	}
}

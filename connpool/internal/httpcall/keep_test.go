package httpcall

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

// rawServer answers every request on every connection with answer, and counts the
// connections it accepted. It returns the origin's host.
func rawServer(t *testing.T, answer string) (string, *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var accepted atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					io.Copy(io.Discard, req.Body)
					if _, err := io.WriteString(c, answer); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String(), &accepted
}

// A connection whose answer had a status below 200 (one below 100 is the answer, see
// TestStatusBelow100IsTheAnswer) is not used again, as net/http's Transport does not use it.
func TestStatusBelow200NotKept(t *testing.T) {
	host, accepted := rawServer(t, "HTTP/1.1 099 Odd\r\nContent-Length: 2\r\n\r\nok")
	tr := &Transport{Scheme: "http", Host: host, Fallback: http.DefaultTransport}
	defer tr.CloseIdleConnections()
	for range 2 {
		req, _ := http.NewRequest(http.MethodGet, "http://"+host+"/", nil)
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		if b, err := io.ReadAll(resp.Body); err != nil || string(b) != "ok" {
			t.Fatalf("body %q, %v", b, err)
		}
		resp.Body.Close()
	}
	if n := accepted.Load(); n != 2 {
		t.Fatalf("%d connections for two answers of status 099, want 2", n)
	}
}

// A server that answers before it has read the request's body (413 for a body too large,
// 401) and closes the connection is answered as net/http's Transport answers it: with its
// response, not with the error of writing the rest of the body. The connection is not kept.
func TestAnswerBeforeBody(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/large" {
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			io.WriteString(w, "too large")
			return
		}
		io.WriteString(w, "ok")
	})
	tr := newTransport(t, s)
	req, _ := http.NewRequest(http.MethodPost, s.URL+"/large", strings.NewReader(strings.Repeat("x", 16<<20)))
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatalf("a request answered before its body was read: %v, want the answer", err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge || string(b) != "too large" || err != nil {
		t.Fatalf("status %d, body %q, %v; want 413, too large", resp.StatusCode, b, err)
	}
	if got, err := post(t, tr, context.Background(), s.URL, "y"); err != nil || got != "ok" {
		t.Fatalf("next request: %q, %v", got, err)
	}
	if n := s.opened.Load(); n != 2 {
		t.Fatalf("%d connections, want 2 (the broken one is not reused)", n)
	}
}

// A connection whose answer had both Content-Length and chunked framing is not used again:
// the body is read as chunked, as net/http reads it, but RFC 9112 (section 6.3) calls such a
// message a sign of smuggling, to be handled as an error.
func TestLengthAndChunkedNotKept(t *testing.T) {
	host, accepted := rawServer(t, "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n")
	tr := &Transport{Scheme: "http", Host: host, Fallback: http.DefaultTransport}
	defer tr.CloseIdleConnections()
	for range 2 {
		if got, err := post(t, tr, context.Background(), "http://"+host+"/", "x"); err != nil || got != "ok" {
			t.Fatalf("%q, %v; want ok", got, err)
		}
	}
	if n := accepted.Load(); n != 2 {
		t.Fatalf("%d connections for two answers framed both ways, want 2", n)
	}
}

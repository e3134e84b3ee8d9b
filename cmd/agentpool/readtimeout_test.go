package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentpool/agentpool/internal/memnet"
)

// TestHTTPServerReadTimeout: on a synctest bubble's clock, serve's HTTP server (newHTTPServer
// at DefaultReadTimeout, 30 s) cuts off a request whose body trickles in for ever once the
// bound has passed, closes a keep-alive connection idle for the bound and not before, and lets
// a response take three bounds. The connections are in memory (memnet), which a bubble can
// wait on; TestServeSlowBodyCut checks the same against a real serve over TCP.
func TestHTTPServerReadTimeout(t *testing.T) {
	t.Parallel()
	const bound = DefaultReadTimeout
	synctest.Test(t, func(t *testing.T) {
		l := memnet.Listen()
		srv := newHTTPServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if _, err := io.ReadAll(r.Body); err != nil {
				return
			}
			if r.URL.Path == "/slow" {
				<-time.After(3 * bound) // the bubble's clock: no real wait
				io.WriteString(w, "done")
				return
			}
			http.NotFound(w, r)
		}), bound)
		served := make(chan struct{})
		go func() { defer close(served); srv.Serve(l) }()
		defer func() { srv.Close(); <-served }()
		dial := func() net.Conn {
			c, err := l.Dial(context.Background(), "", "")
			if err != nil {
				t.Fatal(err)
			}
			return c
		}

		// A body trickled a byte a second, for ever.
		conn := dial()
		defer conn.Close()
		start := time.Now()
		go func() {
			if _, err := io.WriteString(conn, "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n{"); err != nil {
				return
			}
			tick := time.NewTicker(time.Second) // the bubble's clock
			defer tick.Stop()
			for range tick.C {
				if _, err := io.WriteString(conn, " "); err != nil {
					return
				}
			}
		}()
		_ = conn.SetReadDeadline(start.Add(10 * bound))
		_, err := io.ReadAll(conn)
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("a body trickled for %s was not cut off (read timeout %s)", 10*bound, bound)
		}
		if took := time.Since(start); took < bound || took > bound+time.Second {
			t.Errorf("a trickled body was cut off after %s, want %s", took, bound)
		}

		// A keep-alive connection left idle after one request.
		idle := dial()
		defer idle.Close()
		if _, err := io.WriteString(idle, "GET /nothing HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(idle)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		answered := time.Now()
		_ = idle.SetReadDeadline(answered.Add(bound - time.Second))
		if _, err := br.ReadByte(); !errors.As(err, &ne) || !ne.Timeout() {
			t.Fatalf("the idle connection ended before the bound: %v", err)
		}
		_ = idle.SetReadDeadline(answered.Add(10 * bound))
		if _, err := br.ReadByte(); errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("an idle keep-alive connection was kept for %s (read timeout %s)", 10*bound, bound)
		}

		// A response that takes three bounds, its request sent whole.
		slow := dial()
		defer slow.Close()
		if _, err := io.WriteString(slow, "POST /slow HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"); err != nil {
			t.Fatal(err)
		}
		resp, err = http.ReadResponse(bufio.NewReader(slow), nil)
		if err != nil {
			t.Fatalf("a response taking three bounds: %v", err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || strings.TrimSpace(string(body)) != "done" {
			t.Errorf("a response taking three bounds: %d %q", resp.StatusCode, body)
		}
	})
}

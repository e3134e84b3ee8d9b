package lane

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/internal/testwait"
)

// TestTakenRequestsOnKeepAlive: after the handler hijacks, a Go http.Client's next POSTs on
// the same connection are answered by the lane's Call.
func TestTakenRequestsOnKeepAlive(t *testing.T) {
	s := newServer(t, Options{})
	tr := &http.Transport{MaxConnsPerHost: 1}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: testwait.Timeout}
	for i := range 4 {
		path, body := "/lane", "call "+strconv.Itoa(i)
		if i == 0 {
			path = "/net" // net/http answers, then hijacks to the lane
		}
		var reused bool
		trace := &httptrace.ClientTrace{GotConn: func(ci httptrace.GotConnInfo) { reused = ci.Reused }}
		req, err := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace),
			http.MethodPost, "http://"+s.addr+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatalf("POST %d: %v", i, err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("POST %d body: %v", i, err)
		}
		if string(got) != body || resp.StatusCode != http.StatusOK || resp.ContentLength != int64(len(body)) {
			t.Errorf("POST %d: %s, Content-Length %d, body %q; want 200 OK and %q", i, resp.Status, resp.ContentLength, got, body)
		}
		if _, err := http.ParseTime(resp.Header.Get("Date")); err != nil {
			t.Errorf("POST %d: Date %q: %v", i, resp.Header.Get("Date"), err)
		}
		if byLane := resp.Header.Get("X-Lane") == "1"; byLane != (i > 0) {
			t.Errorf("POST %d: answered by the lane: %v, want %v", i, byLane, i > 0)
		}
		if i > 0 && !reused {
			t.Errorf("POST %d: a new connection, want the keep-alive one reused", i)
		}
	}
	if n := s.hijacks.Load(); n != 1 {
		t.Errorf("%d hijacks, want 1", n)
	}
}

// TestAnswerBytes checks the lane's answer byte for byte.
func TestAnswerBytes(t *testing.T) {
	s := newServer(t, Options{})
	c := dial(t, s.addr)
	c.write(rawPost("/net", "x"))
	c.read()
	c.write(rawPost("/lane", "hello"))
	want := regexp.MustCompile("^HTTP/1\\.1 200 OK\r\nX-Lane: 1\r\nDate: [A-Z][a-z]{2}, \\d\\d [A-Z][a-z]{2} \\d{4} \\d\\d:\\d\\d:\\d\\d GMT\r\nContent-Length: 5\r\n\r\nhello$")
	got := make([]byte, len("HTTP/1.1 200 OK\r\nX-Lane: 1\r\nDate: Mon, 07 Dec 2026 05:00:00 GMT\r\nContent-Length: 5\r\n\r\nhello"))
	if _, err := io.ReadFull(c.br, got); err != nil || !want.Match(got) {
		t.Fatalf("answer %q (%v), want it to match %s", got, err, want)
	}
}

// TestHandBack: what the lane does not take reaches net/http whole, and the connection comes
// back to the lane after it.
func TestHandBack(t *testing.T) {
	s := newServer(t, Options{BufferSize: 1024})
	c := dial(t, s.addr)
	c.write(rawPost("/net", "first"))
	c.read()
	big := strings.Repeat("b", 3000)
	for _, tc := range []struct {
		name, req, method, body string
	}{
		{"GET", "GET /lane HTTP/1.1\r\nHost: example.test\r\nX-Test: GET\r\n\r\n", "GET", ""},
		{"refused", rawPost("/refuse", "refused body", "X-Test: refused"), "POST", "refused body"},
		{"chunked", "POST /lane HTTP/1.1\r\nHost: example.test\r\nX-Test: chunked\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nchunk\r\n3\r\ned!\r\n0\r\n\r\n", "POST", "chunked!"},
		{"over BufferSize", rawPost("/lane", big, "X-Test: over BufferSize"), "POST", big},
	} {
		c.write(tc.req)
		resp, body := c.read()
		if resp.Header.Get("X-Net") != "1" || resp.Header.Get("X-Method") != tc.method {
			t.Errorf("%s: answer %v, want net/http's to a %s", tc.name, resp.Header, tc.method)
		}
		if got := resp.Header.Get("X-Test"); got != tc.name {
			t.Errorf("%s: net/http saw X-Test %q, want %q", tc.name, got, tc.name)
		}
		if body != tc.body {
			t.Errorf("%s: net/http read the body %.40q (%d bytes), want %.40q (%d)", tc.name, body, len(body), tc.body, len(tc.body))
		}
		// Back on the lane: the handler hijacked again.
		c.write(rawPost("/lane", "again"))
		resp, body = c.read()
		if resp.Header.Get("X-Lane") != "1" || body != "again" {
			t.Errorf("after %s: answer %v %q, want the lane's", tc.name, resp.Header, body)
		}
	}
	c.write("POST /lane HTTP/1.1\r\nHost: example.test\r\nBad Header Line\r\nContent-Length: 0\r\n\r\n")
	resp, _ := c.read()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("malformed head: %s, want net/http's 400", resp.Status)
	}
	c.wantEOF()
	if n := s.hijacks.Load(); n != 5 {
		t.Errorf("%d hijacks, want 5", n)
	}
}

// TestListenerClose: once Listen's listener is closed, a connection the lane would hand back
// is closed, and Accept returns net.ErrClosed.
func TestListenerClose(t *testing.T) {
	s := newServer(t, Options{})
	c := dial(t, s.addr)
	c.write(rawPost("/net", "x"))
	c.read()
	c.write(rawPost("/lane", "y"))
	c.read()
	if err := s.ln.Close(); err != nil {
		t.Fatal(err)
	}
	testwait.For(t, "http.Server.Serve to return", func() bool { return len(s.served) > 0 })
	err := <-s.served
	s.served <- err
	if !errors.Is(err, net.ErrClosed) {
		t.Errorf("http.Server.Serve returned %v, want net.ErrClosed", err)
	}
	c.write("GET / HTTP/1.1\r\nHost: example.test\r\n\r\n")
	c.wantEOF()
	if _, err := s.ln.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Accept after Close: %v, want net.ErrClosed", err)
	}
}

// TestCallWithoutAnswer: a Call that returns without writing closes the connection.
func TestCallWithoutAnswer(t *testing.T) {
	s := newServer(t, Options{Take: func(r *http.Request, body []byte) (Call, bool) {
		return callFunc(func(context.Context, *Writer) {}), r.URL.Path == "/lane"
	}})
	c := dial(t, s.addr)
	c.write(rawPost("/net", "x"))
	c.read()
	c.write(rawPost("/lane", "y"))
	c.wantEOF()
}

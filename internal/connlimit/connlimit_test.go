package connlimit

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/conntest"
	"github.com/agentpool/agentpool/internal/testwait"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// get sends GET path on a new connection to addr and returns the status and body ("" and
// 0 when the connection was closed unanswered).
func get(t *testing.T, addr, path string) (int, string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: "+addr+"\r\n\r\n"); err != nil {
		return 0, ""
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return 0, ""
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Retry-After") + "|" + string(body)
}

// TestPastTheCap: with Max connections held open (idle, sending nothing), a new connection
// still gets /healthz answered by the probe handler, anything else 503 with Retry-After naming
// the key; with Spare more idle ones waiting past the cap, the probe is still answered (the
// oldest waiting is closed for it); once the held connections close, the server serves again.
func TestPastTheCap(t *testing.T) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "served "+r.URL.Path) })
	ln := Listen(raw, Options{Max: 2, Probe: h, ProbePaths: []string{"/healthz"}, Key: "server.max_connections"}).(*listener)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: time.Minute}
	go srv.Serve(ln)
	defer srv.Close()
	addr := raw.Addr().String()

	if status, body := get(t, addr, "/mcp"); status != http.StatusOK || !strings.HasSuffix(body, "served /mcp") {
		t.Fatalf("under the cap: %d %q", status, body)
	}
	testwait.For(t, "the server to close that connection", func() bool { return len(ln.open) == 0 })
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	hold := func(n int) {
		for range n {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			held = append(held, c)
		}
	}
	hold(2)
	testwait.For(t, "the two idle connections to be held", func() bool { return len(ln.open) == 2 })
	if status, body := get(t, addr, "/healthz"); status != http.StatusOK || body != "|served /healthz" {
		t.Errorf("/healthz past the cap: %d %q, want the probe's 200", status, body)
	}
	status, body := get(t, addr, "/mcp")
	if status != http.StatusServiceUnavailable || !strings.HasPrefix(body, "1|") || !strings.Contains(body, "server.max_connections") {
		t.Errorf("/mcp past the cap: %d %q, want 503 with Retry-After naming server.max_connections", status, body)
	}

	hold(3 * Spare) // past the cap, idle: the oldest are closed as new ones come
	testwait.For(t, "Spare idle connections to wait", func() bool {
		ln.mu.Lock()
		defer ln.mu.Unlock()
		return len(ln.waiting) == Spare
	})
	if status, body := get(t, addr, "/healthz"); status != http.StatusOK || body != "|served /healthz" {
		t.Errorf("/healthz past Max + Spare idle connections: %d %q, want the probe's 200", status, body)
	}
	for _, c := range held {
		c.Close()
	}
	held = nil
	testwait.For(t, "the server to serve again", func() bool {
		status, body := get(t, addr, "/mcp")
		return status == http.StatusOK && strings.HasSuffix(body, "served /mcp")
	})
}

// TestPastTheCapRequestBounded: a connection past the cap that sends a request without end
// is read no further than a server reads a request's header (http.DefaultMaxHeaderBytes)
// and closed, so that the connections waiting past the cap cannot take the process's memory.
func TestPastTheCapRequestBounded(t *testing.T) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "served") })
	ln := Listen(raw, Options{Max: 1, Probe: h, ProbePaths: []string{"/healthz"}, Key: "server.max_connections"}).(*listener)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: time.Minute}
	go srv.Serve(ln)
	defer srv.Close()
	addr := raw.Addr().String()

	held, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	testwait.For(t, "the idle connection to be held", func() bool { return len(ln.open) == 1 })

	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const most = 64 << 20 // far past the header bound and what the kernel buffers
	if _, err := io.WriteString(c, "GET /"); err != nil {
		t.Fatal(err)
	}
	chunk := []byte(strings.Repeat("a", 64<<10)) // the request line goes on, never ending
	sent := 0
	for sent < most {
		n, err := c.Write(chunk)
		sent += n
		if err != nil {
			break
		}
	}
	if sent >= most {
		t.Errorf("a connection past the cap took %d bytes of a request line without being closed", sent)
	}
}

// A connection within the cap half-closes as the raw one does: net/http shuts its writing side
// before closing, so that the client reads the last answer, and still reads what the client
// sends meanwhile.
func TestCloseWriteKept(t *testing.T) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := Listen(raw, Options{Max: 2, Key: "server.max_connections"})
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			accepted <- c
		}
	}()
	nc, err := net.Dial("tcp", raw.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	c := <-accepted
	defer c.Close()
	conntest.HalfClose(t, c, nc)
}

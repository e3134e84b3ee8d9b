package writestall

import (
	"bufio"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/conntest"
	"github.com/agentpool/agentpool/internal/testwait"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const stall = 200 * time.Millisecond

// smallBuffers is a listener whose connections have the smallest send buffer.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(1)
	}
	return c, err
}

// dialSmall dials addr with the smallest receive buffer.
func dialSmall(t *testing.T, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { _ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 1) })
	}}
	nc, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return nc
}

// server starts an HTTP server of h on a listener of Listen (TLS around it when tlsOn) and
// returns its address and a count of the connections it closed.
func server(t *testing.T, h http.Handler, stall time.Duration, tlsOn bool) (string, *atomic.Int32) {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	var closed atomic.Int32
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateClosed || s == http.StateHijacked {
			closed.Add(1)
		}
	}
	srv.Listener = Listen(smallBuffers{srv.Listener}, stall)
	if tlsOn {
		srv.StartTLS() // TLS around the stall's listener
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String(), &closed
}

// A client that sends requests one after the other and never reads their answers, small ones
// net/http writes after the handler returned, has its connection closed once a write to it
// stalled past the bound, over TLS too.
func TestStuckClientClosed(t *testing.T) {
	answer := `{"jsonrpc":"2.0","id":1,"result":{}}`
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		_, _ = io.WriteString(w, answer)
	})
	for _, tlsOn := range []bool{false, true} {
		t.Run(fmt.Sprintf("tls=%v", tlsOn), func(t *testing.T) {
			addr, closed := server(t, h, stall, tlsOn)
			var nc net.Conn = dialSmall(t, addr)
			if tlsOn {
				tc := tls.Client(nc, &tls.Config{InsecureSkipVerify: true})
				if err := tc.Handshake(); err != nil {
					t.Fatal(err)
				}
				nc = tc
			}
			go func() { // requests, their answers never read
				for {
					if _, err := fmt.Fprintf(nc, "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"); err != nil {
						return
					}
				}
			}()
			testwait.Within(t, 30*time.Second, "the connection of a client that stopped reading closed", func() bool { return closed.Load() > 0 })
			nc.Close()
		})
	}
}

// A hijacked connection's writes are bounded too.
func TestHijackedWriteBounded(t *testing.T) {
	failed := make(chan error, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			failed <- err
			return
		}
		defer c.Close()
		_, err = c.Write(make([]byte, 16<<20))
		failed <- err
	})
	addr, _ := server(t, h, stall, false)
	nc := dialSmall(t, addr)
	if _, err := io.WriteString(nc, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	var err error
	testwait.Within(t, 30*time.Second, "the hijacker's write to a client that does not read failed", func() bool {
		select {
		case err = <-failed:
			return true
		default:
			return false
		}
	})
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the hijacker's write: %v, want a deadline exceeded", err)
	}
}

// An SSE stream its client reads slowly, each event taking several stall bounds to be read
// but the reading never stopping, keeps working: every event arrives whole.
func TestSlowReaderKeepsStream(t *testing.T) {
	// A bound well above TCP's own pauses (its retransmission timer, 200 ms at least), which
	// a slow reader of a tiny window can meet.
	const stall = time.Second
	const events, size = 2, 96 << 10
	data := strings.Repeat("x", size)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range events {
			if _, err := fmt.Fprintf(w, "id: %d\ndata: %s\n\n", i, data); err != nil {
				return
			}
			if err := http.NewResponseController(w).Flush(); err != nil {
				return
			}
		}
	})
	addr, _ := server(t, h, stall, false)
	nc := dialSmall(t, addr)
	if _, err := io.WriteString(nc, "GET /mcp HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	// 2 KiB every 25 ms: an event, written in one write, takes 1.2 s to be read.
	slow := &pacedReader{r: nc, n: 2 << 10, tick: time.NewTicker(25 * time.Millisecond)}
	defer slow.tick.Stop()
	resp, err := http.ReadResponse(bufio.NewReaderSize(slow, 2<<10), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 2*size)
	got := 0
	for sc.Scan() {
		if line, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			if line != data {
				t.Fatalf("event %d: %d bytes, want %d", got, len(line), size)
			}
			got++
		}
	}
	if got != events {
		t.Fatalf("%d events read slowly, want %d (err %v)", got, events, sc.Err())
	}
}

// pacedReader reads at most n bytes of r per tick.
type pacedReader struct {
	r    io.Reader
	n    int
	tick *time.Ticker
}

func (p *pacedReader) Read(b []byte) (int, error) {
	<-p.tick.C
	return p.r.Read(b[:min(len(b), p.n)])
}

// A deadline the connection's user set is kept when earlier than the stall's: one in the past
// fails the next write at once, and one that passes ends a write even while it progresses.
func TestUserDeadlineKept(t *testing.T) {
	c, nc := pair(t, func(raw net.Listener) net.Listener { return Listen(smallBuffers{raw}, time.Hour) },
		func(addr string) (net.Conn, error) { return dialSmall(t, addr), nil })
	defer c.Close()

	_ = c.SetWriteDeadline(time.Now().Add(-time.Second))
	if _, err := c.Write([]byte("x")); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a write past the user's deadline: %v, want a deadline exceeded", err)
	}

	reader := &pacedReader{r: nc, n: 1 << 10, tick: time.NewTicker(10 * time.Millisecond)}
	defer reader.tick.Stop()
	copied := make(chan struct{})
	go func() { defer close(copied); _, _ = io.Copy(io.Discard, reader) }()
	big := make([]byte, 64<<20) // more than is read before the deadline
	_ = c.SetWriteDeadline(time.Now().Add(time.Second))
	n, err := c.Write(big)
	if !errors.Is(err, os.ErrDeadlineExceeded) || n == 0 {
		t.Fatalf("a progressing write past the user's deadline: %d bytes, %v; want some bytes and a deadline exceeded", n, err)
	}

	nc.Close()
	<-copied
}

// A connection half-closes as the raw one does: net/http closes the writing side first so the
// client reads its last answer before the connection ends.
func TestCloseWriteKept(t *testing.T) {
	c, nc := pair(t, func(raw net.Listener) net.Listener { return Listen(raw, time.Hour) }, nil)
	defer nc.Close()
	defer c.Close()
	conntest.HalfClose(t, c, nc)
}

// A stall of zero or less is not a bound that fails every write at once: Listen takes Default.
func TestNonPositiveStallIsDefault(t *testing.T) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	for _, stall := range []time.Duration{0, -time.Second} {
		if got := Listen(raw, stall).(*listener).stall; got != Default {
			t.Errorf("Listen(ln, %v): stall %v, want %v", stall, got, Default)
		}
	}
	raw.Close()
}

// pair returns the two ends of a loopback TCP connection: server accepted through the
// listener wrap makes of a raw one, client dialed by dial (net.Dial when nil). The listener
// is closed when the test ends; the ends are the caller's to close.
func pair(tb testing.TB, wrap func(net.Listener) net.Listener, dial func(addr string) (net.Conn, error)) (server, client net.Conn) {
	tb.Helper()
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	ln := wrap(raw)
	tb.Cleanup(func() { ln.Close() })
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
		close(accepted)
	}()
	if dial == nil {
		dial = func(addr string) (net.Conn, error) { return net.Dial("tcp", addr) }
	}
	client, err = dial(raw.Addr().String())
	if err != nil {
		tb.Fatal(err)
	}
	server, ok := <-accepted
	if !ok {
		client.Close()
		tb.Fatal("the listener accepted no connection")
	}
	return server, client
}

package gateway_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/gateway"
	"github.com/agentpool/agentpool/internal/testwait"
)

// sizedCap is echoCap answering every passed-through call with res.
type sizedCap struct {
	echoCap
	res json.RawMessage
}

func (c *sizedCap) CallToolRaw(context.Context, *ext.ToolCall) (json.RawMessage, error) {
	return c.res, nil
}

// deadlineWriter is discardWriter counting the write deadlines set on it.
type deadlineWriter struct {
	discardWriter
	deadlines int
}

func (w *deadlineWriter) SetWriteDeadline(time.Time) error {
	w.deadlines++
	return nil
}

// An answer passed through is written out within a write deadline whatever its size: one
// that fits in what net/http buffers is still written to the connection, after the handler
// returns when nothing flushed it, where no deadline bounds the write.
func TestPassThroughWriteDeadline(t *testing.T) {
	small := json.RawMessage(`{"content":[{"type":"text","text":"hi"}]}`)
	large := json.RawMessage(`{"content":[{"type":"text","text":"` + strings.Repeat("x", 8<<10) + `"}]}`)
	for _, tc := range []struct {
		name string
		res  json.RawMessage
		want bool // a deadline is set
	}{{"small", small, true}, {"large", large, true}} {
		t.Run(tc.name, func(t *testing.T) {
			h, sid := passingHandler(t, &sizedCap{res: tc.res})
			const call = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`
			var w *deadlineWriter
			testwait.For(t, "a call passed through", func() bool {
				req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(call))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Mcp-Session-Id", sid)
				req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
				w = &deadlineWriter{discardWriter: discardWriter{h: http.Header{}}}
				h.ServeHTTP(w, req)
				return w.code == http.StatusOK && isJSON(w.h)
			})
			if got := w.deadlines > 0; got != tc.want {
				t.Fatalf("%d write deadlines set for an answer of %d bytes, want some: %v", w.deadlines, len(tc.res), tc.want)
			}
		})
	}
}

// passingHandler returns the handler of a gateway serving c at the pool's level and the id of
// a session of it that has sent notifications/initialized.
func passingHandler(t *testing.T, c ext.Capability) (http.Handler, string) {
	t.Helper()
	reg := ext.NewRegistry(nil)
	if err := reg.Register(c, ext.LevelPool, ext.Scope{}); err != nil {
		t.Fatal(err)
	}
	g, err := gateway.New(gateway.Options{Registry: reg, Metrics: gateway.NewMetrics(nil)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = g.Close(ctx)
		_ = reg.Close(ctx)
	})
	h := g.Handler()
	init := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(initBody))
	init.Header.Set("Content-Type", "application/json")
	init.Header.Set("Accept", "application/json, text/event-stream")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, init)
	sid := rec.Header().Get("Mcp-Session-Id")
	if rec.Code != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d %s", rec.Code, rec.Body)
	}
	if st, _, _, _ := rawPost(h, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); st != http.StatusAccepted {
		t.Fatalf("initialized: %d", st)
	}
	return h, sid
}

// A body shorter than its declared length is refused with 400, as one read to its end is.
func TestHeldBodyShort(t *testing.T) {
	h, sid := passingHandler(t, &sizedCap{res: json.RawMessage(`{}`)})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	addr := strings.TrimPrefix(srv.URL, "http://")
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	const call = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo"}}`
	fmt.Fprintf(nc, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
		"Mcp-Session-Id: %s\r\nMcp-Protocol-Version: 2025-06-18\r\nContent-Length: %d\r\n\r\n%s", addr, sid, len(call)+10, call)
	_ = nc.(*net.TCPConn).CloseWrite() // the rest never comes
	_ = nc.SetReadDeadline(time.Now().Add(30 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(nc), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if body, _ := io.ReadAll(resp.Body); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("HTTP %d (%s), want 400", resp.StatusCode, body)
	}
}

// A Content-Length the body does not keep costs no buffer of the declared size: clients that
// declare the cap and send a few bytes make the gateway hold what they sent, not the cap each.
func TestHeldBodyLyingLength(t *testing.T) {
	h, sid := passingHandler(t, &sizedCap{res: json.RawMessage(`{}`)})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	addr := strings.TrimPrefix(srv.URL, "http://")
	const clients = 8
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range clients {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(nc, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
			"Mcp-Session-Id: %s\r\nMcp-Protocol-Version: 2025-06-18\r\nContent-Length: %d\r\n\r\n{", addr, sid, gateway.DefaultMaxBodyBytes)
		_ = nc.(*net.TCPConn).CloseWrite()
		_ = nc.SetReadDeadline(time.Now().Add(30 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(nc), nil)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		nc.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("HTTP %d, want 400", resp.StatusCode)
		}
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got >= clients*gateway.DefaultMaxBodyBytes/2 {
		t.Fatalf("%d requests declaring %d bytes and sending 1 allocated %d bytes", clients, gateway.DefaultMaxBodyBytes, got)
	}
}

// smallBuffers is a listener whose connections have the smallest send buffer.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(1)
	}
	return c, err
}

// A client that sends calls and stops reading their answers, small ones included, has its
// connection ended once a write to it stalls past the bound: it holds no goroutine and no
// connection of the gateway for good.
func TestPassThroughStuckClient(t *testing.T) {
	defer gateway.SetWriteStall(200 * time.Millisecond)()
	h, sid := passingHandler(t, &sizedCap{res: json.RawMessage(`{}`)})
	srv := httptest.NewUnstartedServer(h)
	var closed atomic.Int32
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateClosed {
			closed.Add(1)
		}
	}
	srv.Listener = smallBuffers{srv.Listener}
	srv.Start()
	t.Cleanup(srv.Close)
	addr := srv.Listener.Addr().String()
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { _ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 1) })
	}}
	nc, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	const call = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo"}}`
	go func() { // calls, one after the other, their answers never read
		for i := 0; ; i++ {
			body := strings.Replace(call, "7", strconv.Itoa(i), 1)
			if _, err := fmt.Fprintf(nc, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
				"Mcp-Session-Id: %s\r\nMcp-Protocol-Version: 2025-06-18\r\nContent-Length: %d\r\n\r\n%s", addr, sid, len(body), body); err != nil {
				return
			}
		}
	}()
	testwait.Within(t, 30*time.Second, "the connection of a client that stopped reading ended", func() bool { return closed.Load() > 0 })
}

package connpool

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestCallErrorMarks: CallError marks the go-sdk's errors by what they say of the connection,
// keeps their messages, and leaves the server's answers and the caller's own errors alone.
func TestCallErrorMarks(t *testing.T) {
	for _, c := range []struct {
		err  error
		want error // ErrLost, ErrNotSent or nil
	}{
		{fmt.Errorf("%w: calling %q: client is closing", mcp.ErrConnectionClosed, "tools/call"), ErrNotSent},
		{fmt.Errorf("reading: %w", io.EOF), ErrLost},
		{io.ErrUnexpectedEOF, ErrLost},
		{fmt.Errorf("POST: %w", mcp.ErrSessionMissing), ErrLost},
		{&jsonrpc.Error{Code: -32602, Message: "bad args"}, nil},
		{fmt.Errorf("sending: %w: HTTP 500", wire.ErrRejected), nil},
		{fmt.Errorf("sending: %w: %w", wire.ErrRejected, lost(errors.New("connection reset"))), ErrLost},
		{fmt.Errorf("sending: %w: %w", wire.ErrRejected, notSent(errors.New("dial tcp: refused"))), ErrNotSent},
		{context.Canceled, nil},
		{errors.New("something else"), nil},
	} {
		got := CallError(c.err)
		if got.Error() != c.err.Error() {
			t.Errorf("CallError(%v) says %q", c.err, got)
		}
		for _, s := range []error{ErrLost, ErrNotSent} {
			if errors.Is(got, s) != (s == c.want) {
				t.Errorf("CallError(%v): errors.Is %v = %v", c.err, s, !(s == c.want))
			}
		}
		if !errors.Is(got, c.err) {
			t.Errorf("CallError(%v) no longer wraps it", c.err)
		}
	}
	if CallError(nil) != nil {
		t.Error("CallError(nil) is not nil")
	}
}

// TestCallRawLostThenNotSent: a call in flight when the stdio server dies is ErrLost; a call on
// the client the pool has ended is ErrNotSent; the lease's CallError says the same of the
// go-sdk session's calls.
func TestCallRawLostThenNotSent(t *testing.T) {
	p := newTestPool(t, nil)
	c := mustGet(t, p, faultCfg(t), "global")
	defer p.Release(c)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := c.CallRaw(ctx, "tools/call", []byte(`{"name":"crash"}`))
	if !errors.Is(err, ErrLost) || errors.Is(err, ErrNotSent) {
		t.Fatalf("a call the server died under: %v, want ErrLost", err)
	}
	<-c.Done()
	_, err = c.CallRaw(ctx, "tools/call", []byte(`{"name":"echo","arguments":{"text":"x"}}`))
	if !errors.Is(err, ErrNotSent) || !errors.Is(err, mcp.ErrConnectionClosed) {
		t.Fatalf("a call on the ended client: %v, want ErrNotSent", err)
	}
	_, err = c.Session().CallTool(ctx, &mcp.CallToolParams{Name: "echo"})
	if err = c.CallError(err); !errors.Is(err, ErrNotSent) && !errors.Is(err, ErrLost) {
		t.Fatalf("the session's call on the ended client: %v, want ErrNotSent or ErrLost", err)
	}
}

// TestCallRawNotSentWithoutAListener: an HTTP request whose connection cannot be dialled never
// left (ErrNotSent), and wraps the go-sdk's rejected error as the session's calls do.
func TestCallRawNotSentWithoutAListener(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	hc, _ := newHTTPClient(url, nil, func(error) {})
	h := &rawHTTP{hc: hc, endpoint: url, c: &client{}, life: context.Background()}
	_, err := h.call(context.Background(), "tools/call", []byte(`{"name":"x"}`))
	if !errors.Is(err, ErrNotSent) || errors.Is(err, ErrLost) || !errors.Is(err, wire.ErrRejected) {
		t.Fatalf("call to a closed port: %v, want ErrNotSent and the rejected error", err)
	}
}

// TestCallRawLostInJSONBody: a JSON response whose body breaks off before its end was sent by
// a server that got the request: the call is ErrLost, as one whose event stream breaks.
func TestCallRawLostInJSONBody(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "200")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":"agentpool-raw-1","result":{`))
		w.(http.Flusher).Flush()
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
	}))
	defer srv.Close()
	hc, _ := newHTTPClient(srv.URL, nil, func(error) {})
	h := &rawHTTP{hc: hc, endpoint: srv.URL, c: &client{}, life: context.Background()}
	_, err := h.call(context.Background(), "tools/call", []byte(`{"name":"x"}`))
	if !errors.Is(err, ErrLost) || errors.Is(err, ErrNotSent) {
		t.Fatalf("a JSON answer cut off: %v, want ErrLost", err)
	}
}

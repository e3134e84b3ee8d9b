package gateway_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/gateway"
	"github.com/agentpool/agentpool/internal/testwait"
)

// fixedCap is echoCap answering every passed-through call with one result, made once: what
// a pass-through costs is then the gateway's alone.
type fixedCap struct{ echoCap }

var fixedResult = json.RawMessage(`{"content":[{"type":"text","text":"hi"}]}`)

func (fixedCap) CallToolRaw(context.Context, *ext.ToolCall) (json.RawMessage, error) {
	return fixedResult, nil
}

// rewindBody is a request body read again from its start on each use.
type rewindBody struct {
	*strings.Reader
	s string
}

func (b *rewindBody) Close() error { return nil }

// maxPassAllocs bounds the gateway's allocations for one passed-through call, from the
// request's arrival at its handler to the answer written.
const maxPassAllocs = 12

// A passed-through call costs the gateway a bounded number of allocations (the request's
// context, the session's record of the call, the answer and its length), none per layer it crosses.
func TestPassThroughAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	reg := ext.NewRegistry(nil)
	if err := reg.Register(fixedCap{}, ext.LevelPool, ext.Scope{}); err != nil {
		t.Fatal(err)
	}
	g, err := gateway.New(gateway.Options{Registry: reg, Metrics: gateway.NewMetrics(nil)})
	if err != nil {
		t.Fatal(err)
	}
	h := g.Handler()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = g.Close(ctx)
		_ = reg.Close(ctx)
	})
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
	const call = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`
	body := &rewindBody{Reader: strings.NewReader(call), s: call}
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", nil)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	req.ContentLength = int64(len(call))
	w := &discardWriter{h: http.Header{}}
	serve := func() {
		body.Reset(body.s)
		req.Body = body
		clear(w.h)
		w.code = 0
		h.ServeHTTP(w, req)
	}
	// The session passes calls through once the go-sdk has handled notifications/initialized.
	testwait.For(t, "a call passed through", func() bool {
		serve()
		return w.code == http.StatusOK && isJSON(w.h)
	})
	if n := testing.AllocsPerRun(200, serve); n > maxPassAllocs {
		t.Errorf("%v allocations per passed-through call, want at most %d", n, maxPassAllocs)
	}
}

// discardWriter is a ResponseWriter that keeps the status and header and drops the body.
type discardWriter struct {
	h    http.Header
	code int
}

func (w *discardWriter) Header() http.Header { return w.h }
func (w *discardWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
}
func (w *discardWriter) SetWriteDeadline(time.Time) error { return nil } // as net/http's
func (w *discardWriter) Flush()                           {}             // as net/http's

func (w *discardWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return len(p), nil
}

package mcpcap

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/agentpool/agentpool/connpool"
	"math/big"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/agentpool/agentpool/ext"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// wireTap wraps a transport and keeps the raw JSON the other side sent: the result of the
// latest response to each method, and (wrapping a server transport) the params of the latest
// request of each method. Tests compare what a Cap returns with these bytes, not with
// the go-sdk's decoding of them, so a loss anywhere between the wire and ext shows.
//
// Wrapping hides the streamable HTTP connection's (unexported) session hook: a tapped HTTP
// session opens no standalone SSE stream and sends no protocol-version header after
// initialize. Request/response traffic, all a tapped session is used for, is unaffected.
type wireTap struct {
	inner mcp.Transport

	mu      sync.Mutex
	pending map[jsonrpc.ID]string // request id → method
	results map[string]json.RawMessage
	params  map[string]json.RawMessage // request method → params
}

func newWireTap(inner mcp.Transport) *wireTap {
	return &wireTap{inner: inner, pending: map[jsonrpc.ID]string{}, results: map[string]json.RawMessage{}, params: map[string]json.RawMessage{}}
}

func (w *wireTap) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := w.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &tapConn{Connection: c, tap: w}, nil
}

// result returns the raw result of the latest response to method.
func (w *wireTap) result(t *testing.T, method string) json.RawMessage {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	r, ok := w.results[method]
	if !ok {
		t.Fatalf("no %s response on the wire", method)
	}
	return r
}

// last returns the raw params of the latest request of method.
func (w *wireTap) last(t *testing.T, method string) json.RawMessage {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	p, ok := w.params[method]
	if !ok {
		t.Fatalf("no %s request on the wire", method)
	}
	return p
}

type tapConn struct {
	mcp.Connection
	tap *wireTap
}

func (c *tapConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if r, ok := msg.(*jsonrpc.Request); ok && r.IsCall() {
		c.tap.mu.Lock()
		c.tap.pending[r.ID] = r.Method
		c.tap.mu.Unlock()
	}
	return c.Connection.Write(ctx, msg)
}

func (c *tapConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err != nil {
		return msg, err
	}
	c.tap.mu.Lock()
	switch r := msg.(type) {
	case *jsonrpc.Response:
		if method, ok := c.tap.pending[r.ID]; ok {
			delete(c.tap.pending, r.ID)
			c.tap.results[method] = bytes.Clone(r.Result)
		}
	case *jsonrpc.Request:
		c.tap.params[r.Method] = bytes.Clone(r.Params)
	}
	c.tap.mu.Unlock()
	return msg, err
}

// bareSession connects a plain go-sdk client through a wireTap: the direct baseline a Cap is
// compared with. It is closed at the end of the test.
func bareSession(t *testing.T, transport mcp.Transport) (*mcp.ClientSession, *wireTap) {
	t.Helper()
	tap := newWireTap(transport)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// The pool's protocol version and capabilities, so that both sides are sent the same thing
	// (servers offer some tools only to clients that can sample or elicit).
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bare", Version: "1"}, &mcp.ClientOptions{Capabilities: connpool.ClientCapabilities()}).Connect(ctx, tap,
		&mcp.ClientSessionOptions{ProtocolVersion: connpool.DefaultProtocolVersion})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs, tap
}

// bareStdio starts command as a bare stdio session.
func bareStdio(t *testing.T, name string, args []string, env []string) (*mcp.ClientSession, *wireTap) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = env
	return bareSession(t, &mcp.CommandTransport{Command: cmd})
}

// wireForm decodes JSON into the generic form compared by wireDiff. Numbers stay as their
// literal text (json.Number), compared by exact value (sameNumber): decoded to float64 an
// integer beyond 2^53 would compare equal to the rounded value a lossy conversion produced.
func wireForm(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return v
}

// wireDiff compares got, an ext value (ext types mirror the MCP wire form, so it marshals to
// it), with raw, the JSON the server sent, structurally: every key and value, numbers by exact
// value. It returns "" when they are the same. The top-level key "resultType" (protocol
// framing, SEP-2322) is not content and is ignored; normalize, when set, adjusts the server's
// form first, for differences the caller has decided are not losses.
func wireDiff(t *testing.T, raw json.RawMessage, got any, normalize func(any)) string {
	t.Helper()
	want := wireForm(t, raw)
	if m, ok := want.(map[string]any); ok {
		delete(m, "resultType")
	}
	if normalize != nil {
		normalize(want)
	}
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatalf("marshal %T: %v", got, err)
	}
	if d := cmp.Diff(want, wireForm(t, b), cmp.Comparer(sameNumber)); d != "" {
		return "(-server +cap):\n" + d + "\nserver: " + string(raw) + "\ncap:    " + string(b)
	}
	return ""
}

// sameNumber compares JSON numbers by exact value, whatever their spelling (1.5e300, 1.5e+300).
func sameNumber(a, b json.Number) bool {
	x, okx := new(big.Rat).SetString(string(a))
	y, oky := new(big.Rat).SetString(string(b))
	return okx && oky && x.Cmp(y) == 0
}

// sameAsWire fails t unless the Cap's answer equals what the server sent for the same request
// made on a bare session. Some server content embeds the time of day (server-everything's
// dynamic resources name the second they were made), so the pair is repeated, up to three
// times, until both requests land in the same second; a real loss differs every time.
func sameAsWire(t *testing.T, what string, direct func() json.RawMessage, viaCap func() any, normalize func(any)) {
	t.Helper()
	var d string
	for range 3 {
		raw := direct()
		if d = wireDiff(t, raw, viaCap(), normalize); d == "" {
			return
		}
	}
	t.Errorf("%s: the Cap's answer differs from what the server sent %s", what, d)
}

// The caller's _meta reaches the server as the caller wrote it (less progressToken): numbers
// keep their digits, however big or precise, rather than passing through float64.
func TestCallerMetaReachesTheWireVerbatim(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := mcp.NewServer(&mcp.Implementation{Name: "raw", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "noop"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
	})
	st, ct := mcp.NewInMemoryTransports()
	wire := newWireTap(st)
	ss, err := s.Connect(ctx, wire, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	c, err := New(Config{Name: "raw"}, WithClient(cs))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	want := map[string]string{"big": `12345678901234567891`, "precise": `0.10000000000000000001`, "nested": `{"id":9007199254740993}`}
	caller := json.RawMessage(`{"big":12345678901234567891,"precise":0.10000000000000000001,"nested":{"id":9007199254740993},"progressToken":"callers"}`)
	for _, sink := range []func(ext.Progress){nil, func(ext.Progress) {}} {
		if _, err := c.CallTool(ctx, &ext.ToolCall{Name: "noop", Meta: caller, Progress: sink}); err != nil {
			t.Fatal(err)
		}
		var got struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		if err := json.Unmarshal(wire.last(t, "tools/call"), &got); err != nil {
			t.Fatal(err)
		}
		for k, v := range want {
			if string(got.Meta[k]) != v {
				t.Errorf("sink %v: _meta.%s reached the server as %s, want %s", sink != nil, k, got.Meta[k], v)
			}
		}
	}
}

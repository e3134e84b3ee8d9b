package gateway_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/gateway"
)

// echoCap is a capability with one tool, echo, and nothing to start: the fuzz target's
// sessions have something to list and call at no cost. It passes calls through
// (ext.RawToolCaller), so that a tools/call of echo may take the gateway's pass-through path.
type echoCap struct{}

var _ ext.RawToolCaller = echoCap{}

func (c echoCap) CallToolRaw(ctx context.Context, call *ext.ToolCall) (json.RawMessage, error) {
	res, err := c.CallTool(ctx, call)
	if err != nil {
		return nil, err
	}
	return json.Marshal(res)
}

func (echoCap) Name() string                { return "mem" }
func (echoCap) Close(context.Context) error { return nil }
func (echoCap) Tools(context.Context) ([]ext.ToolEntry, error) {
	return []ext.ToolEntry{{Name: "echo", Description: "Echoes text.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)}}, nil
}

func (echoCap) CallTool(_ context.Context, c *ext.ToolCall) (*ext.ToolResult, error) {
	if c.Name != "echo" {
		return nil, ext.ErrNotFound
	}
	var in struct{ Text string }
	_ = json.Unmarshal(c.Arguments, &in)
	return ext.TextResult(in.Text), nil
}

// rpcMsg is a JSON-RPC 2.0 message as the wire has it (an error's id may be null).
type rpcMsg struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    *int64  `json:"code"`
		Message *string `json:"message"`
	} `json:"error"`
}

// valid reports whether m is a request, a notification, a result or an error.
func (m *rpcMsg) valid() bool {
	if m.JSONRPC != "2.0" {
		return false
	}
	if m.Method != "" {
		return true
	}
	if m.ID == nil || (m.Result == nil) == (m.Error == nil) {
		return false
	}
	return m.Error == nil || (m.Error.Code != nil && m.Error.Message != nil)
}

// rawPost posts body to h (no network) in session sid and returns the status, the content
// type and the JSON-RPC messages of the answer; ok is false when the answer holds something
// that is not one.
func rawPost(h http.Handler, sid, body string) (status int, ctype string, msgs []*rpcMsg, ok bool) {
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	ctype = rec.Header().Get("Content-Type")
	ok = true
	add := func(data []byte) {
		var m rpcMsg
		if err := json.Unmarshal(data, &m); err != nil || !m.valid() {
			ok = false
			return
		}
		msgs = append(msgs, &m)
	}
	switch {
	case strings.HasPrefix(ctype, "text/event-stream"):
		sc := bufio.NewScanner(rec.Body)
		sc.Buffer(nil, 8<<20)
		for sc.Scan() {
			if data, found := strings.CutPrefix(sc.Text(), "data: "); found {
				add([]byte(data))
			}
		}
	case rec.Body.Len() > 0:
		add(bytes.TrimSpace(rec.Body.Bytes()))
	}
	return rec.Code, ctype, msgs, ok
}

// FuzzHandlerJSONRPC posts arbitrary bodies to the HTTP handler in a live session: it never
// panics, answers each with JSON-RPC (an error or a valid answer; 202 and nothing for what
// needs no answer), and the session is usable after every one. The session passes calls of
// echo through while it can; once a body stopped that (logging/setLevel), the next input gets
// a new session, so that both the pass-through path and the go-sdk's see the inputs.
func FuzzHandlerJSONRPC(f *testing.F) {
	reg := ext.NewRegistry(nil)
	if err := reg.Register(echoCap{}, ext.LevelPool, ext.Scope{}); err != nil {
		f.Fatal(err)
	}
	g, err := gateway.New(gateway.Options{Registry: reg})
	if err != nil {
		f.Fatal(err)
	}
	h := g.Handler()
	f.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = g.Close(ctx)
		_ = reg.Close(ctx)
	})
	open := func(tb testing.TB) string {
		req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(initBody))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		sid := rec.Header().Get("Mcp-Session-Id")
		if rec.Code != http.StatusOK || sid == "" {
			tb.Fatalf("initialize: %d %s", rec.Code, rec.Body)
		}
		if st, _, _, _ := rawPost(h, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); st != http.StatusAccepted {
			tb.Fatalf("initialized: %d", st)
		}
		return sid
	}
	sid := open(f)
	passes := true // the session passes calls of echo through

	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"prompts/get","params":{"name":"nope"}}`,
		`{"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":"skill://x/../../etc/passwd"}}`,
		`{"jsonrpc":"2.0","id":7,"method":"skills/list","params":{}}`,
		`{"jsonrpc":"2.0","id":8,"method":"skills/get","params":{"uri":"skill://x/SKILL.md"}}`,
		`{"jsonrpc":"2.0","id":9,"method":"no/such/method"}`,
		`{"jsonrpc":"2.0","id":10,"method":"initialize","params":{}}`,
		`{"jsonrpc":"2.0","id":11,"method":"logging/setLevel","params":{"level":"debug"}}`,
		`{"jsonrpc":"2.0","id":12,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"x"},"argument":{"name":"a","value":""}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`,
		`{"jsonrpc":"2.0","id":13,"result":{}}`,
		`[{"jsonrpc":"2.0","id":14,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`,
		`{"jsonrpc":"1.0","id":15,"method":"ping"}`,
		`{"id":16,"method":"tools/call","params":"x"}`,
		`{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":1}}`,
		`{`, ``, `null`, `[]`, `"x"`, `{"jsonrpc":"2.0","id":18,"method":"ping"}{}`,
		// The pass-through path's own reading: ids, _meta, arguments, cancellation.
		`{"jsonrpc":"2.0","id":"s1","method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"progressToken":"p"}}}`,
		`{"jsonrpc":"2.0","id":19,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":1}}`,
		`{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
		`{"jsonrpc":"2.0","id":-21,"method":"tools/call","params":{"name":"echo","arguments":null}}`,
		`{"jsonrpc":"2.0","id":2.5,"method":"tools/call","params":{"name":"echo","arguments":[1]}}`,
		`{"jsonrpc":"2.0","id":1e3,"method":"tools/call","params":{"name":"echo","arguments":"x"}}`,
		`{"jsonrpc":"2.0","id":99999999999999999999999,"method":"tools/call","params":{"name":"echo"}}`,
		`{"jsonrpc":"2.0","id":"\u00e9\"","method":"tools/call","params":{"name":"echo","arguments":{"text":"\u0000"}}}`,
		`{"jsonrpc":"2.0","id":22,"id":"dup","method":"tools/call","params":{"name":"echo"},"extra":true}`,
		`{"jsonrpc":"2.0","id":true,"method":"tools/call","params":{"name":"echo"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"s1","reason":"x"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{}}}`,
		` {"jsonrpc":"2.0","id":23,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}} `,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		if !passes {
			del := httptest.NewRequest(http.MethodDelete, "http://127.0.0.1/mcp", nil)
			del.Header.Set("Mcp-Session-Id", sid)
			h.ServeHTTP(httptest.NewRecorder(), del)
			sid, passes = open(t), true
		}
		status, ctype, msgs, ok := rawPost(h, sid, body)
		if !ok {
			t.Fatalf("%q: %d %s: an answer that is not JSON-RPC", body, status, ctype)
		}
		switch {
		case status == http.StatusAccepted:
			if len(msgs) != 0 {
				t.Fatalf("%q: 202 with %d messages", body, len(msgs))
			}
		case len(msgs) == 0:
			t.Fatalf("%q: %d %s without a JSON-RPC answer", body, status, ctype)
		case status != http.StatusOK:
			if msgs[0].Error == nil {
				t.Fatalf("%q: %d with %+v, want a JSON-RPC error", body, status, msgs[0])
			}
		}
		st, ctype, msgs, _ := rawPost(h, sid, `{"jsonrpc":"2.0","id":"after","method":"tools/call","params":{"name":"echo","arguments":{"text":"still"}}}`)
		if st != http.StatusOK || len(msgs) == 0 {
			t.Fatalf("after %q: the session answers %d %v", body, st, msgs)
		}
		passes = strings.HasPrefix(ctype, "application/json") // else the go-sdk's event stream
		if r := msgs[len(msgs)-1]; r.Error != nil || !strings.Contains(string(r.Result), "still") {
			t.Fatalf("after %q: the session answers %+v", body, msgs[len(msgs)-1])
		}
	})
}

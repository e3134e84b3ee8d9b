package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// decodeCases are messages of every kind, and near misses, as a peer may send them.
var decodeCases = []string{
	// requests
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"x":1}}}`,
	`{"jsonrpc":"2.0","id":"a-1","method":"tools/list"}`,
	`{"method":"ping","id":-7,"jsonrpc":"2.0"}`,
	`{"jsonrpc":"2.0","id":1.9,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1e2,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":"\u00e9\n","method":"p\u0069ng","params":[1,2]}`,
	`{"jsonrpc":"2.0","id":1,"method":""}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","params":null}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","result":{"ignored":true}}`,
	"  {\n \"jsonrpc\" : \"2.0\" ,\t\"id\" : 3 , \"method\" : \"x\" }\n",
	// notifications
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":0.5}}`,
	`{"jsonrpc":"2.0","id":null,"method":"notifications/cancelled","params":{"requestId":1}}`,
	`{"jsonrpc":"2.0","ID":1,"method":"x"}`, // keys match exactly: no id
	// responses
	`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`,
	`{"jsonrpc":"2.0","id":"x","result":null}`,
	`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"method not found"}}`,
	`{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"boom","data":{"why":["a"]}}}`,
	`{"jsonrpc":"2.0","id":2,"error":null,"result":1}`,
	`{"jsonrpc":"2.0","id":2,"error":{}}`,
	`{"jsonrpc":"2.0","id":2,"error":{"code":1,"Message":"case"}}`,
	`{"jsonrpc":"2.0","id":2}`,
	`{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"m","data":null}}`,
	`{"jsonrpc":"2.0","id":1,"id":"two","method":"x","method":"y"}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":1},"error":{"message":"x"}}`,
	"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"a\xc3\"}",
	`{"jsonrpc":"2.0","id":1,"method":null}`,
	`{"jsonrpc":null,"id":1,"method":"x"}`,
	`{"jsonrpc":"2\u002e0","id":1,"method":"x"}`,
	`{"jsonrpc":"2.0","id":1e400,"method":"x"}`,
	`{"jsonrpc":"2.0","id":-0.0,"method":"x"}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":1e2,"message":"x"}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":null,"message":null}}`,
	// invalid
	`{"jsonrpc":"2.0","result":1}`,
	`{"jsonrpc":"2.0","id":null,"result":1}`,
	`{"jsonrpc":"1.0","id":1,"method":"x"}`,
	`{"id":1,"method":"x"}`,
	`{"jsonrpc":2,"id":1,"method":"x"}`,
	`{"jsonrpc":"2.0","id":true,"method":"x"}`,
	`{"jsonrpc":"2.0","id":{},"method":"x"}`,
	`{"jsonrpc":"2.0","id":[1],"method":"x"}`,
	`{"jsonrpc":"2.0","id":1,"method":5}`,
	`{"jsonrpc":"2.0","id":1,"error":"x"}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":"x"}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":1.5}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"message":7}}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","error":5}`,
	`{"jsonrpc":"2.0","method":"x","error":"s"}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","error":{"code":1.5}}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","error":{"code":1,"message":"m"}}`,
	`null`,
	`"x"`,
	`17`,
}

// TestDecodeAsTheSDK: every message decodes as the go-sdk's jsonrpc.DecodeMessage decodes
// it, or fails where it fails.
func TestDecodeAsTheSDK(t *testing.T) {
	for _, c := range decodeCases {
		checkAgainstSDK(t, []byte(c))
	}
}

// checkAgainstSDK fails t when Decode and jsonrpc.DecodeMessage disagree on data.
func checkAgainstSDK(t *testing.T, data []byte) {
	t.Helper()
	want, werr := jsonrpc.DecodeMessage(data)
	m, err := Decode(data)
	if (err != nil) != (werr != nil) {
		t.Fatalf("%s:\nwire: %v\ngo-sdk: %v", data, err, werr)
	}
	if err != nil {
		if !errors.Is(err, ErrParse) && !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: error %v wraps neither ErrParse nor ErrInvalid", data, err)
		}
		return
	}
	if diff := cmp.Diff(describe(want), describe(m.SDK())); diff != "" {
		t.Errorf("%s: (-go-sdk +wire)\n%s", data, diff)
	}
	if m.IsRequest() != (m.HasMethod && m.SDKID().IsValid()) || m.IsResponse() == m.HasMethod {
		t.Errorf("%s: kind: request %v notification %v response %v", data, m.IsRequest(), m.IsNotification(), m.IsResponse())
	}
}

// describe is a message in comparable form.
func describe(msg jsonrpc.Message) map[string]any {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		return map[string]any{"kind": "request", "id": fmt.Sprintf("%T %v", m.ID.Raw(), m.ID.Raw()), "method": m.Method, "params": compact(m.Params)}
	case *jsonrpc.Response:
		d := map[string]any{"kind": "response", "id": fmt.Sprintf("%T %v", m.ID.Raw(), m.ID.Raw()), "result": compact(m.Result)}
		if m.Error != nil {
			var we *jsonrpc.Error
			if !errors.As(m.Error, &we) {
				d["error"] = m.Error.Error()
			} else {
				d["error"] = fmt.Sprintf("%d %q %s", we.Code, we.Message, compact(we.Data))
			}
		}
		return d
	}
	return map[string]any{"kind": fmt.Sprintf("%T", msg)}
}

// compact is raw without insignificant space ("" for none), so that the go-sdk's
// re-encoding of a value compares equal to the bytes as they came.
func compact(raw json.RawMessage) string {
	if raw == nil {
		return ""
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return "invalid: " + string(raw)
	}
	return b.String()
}

// TestDecodeKeepsBytes: the id, params and result are the bytes as sent, for a path that
// passes them on.
func TestDecodeKeepsBytes(t *testing.T) {
	m, err := Decode([]byte(`{"jsonrpc":"2.0","id":  "q\"1" ,"method":"tools/call","params":{ "a" : [1, 2] }}`))
	if err != nil {
		t.Fatal(err)
	}
	if string(m.ID) != `"q\"1"` || string(m.Params) != `{ "a" : [1, 2] }` || !m.IsRequest() {
		t.Errorf("got id %s params %s", m.ID, m.Params)
	}
}

// TestDecodeRejectsNonJSON: trailing bytes and broken JSON are parse errors (the go-sdk's
// streaming decoder would read the first value and ignore the rest).
func TestDecodeRejectsNonJSON(t *testing.T) {
	for _, c := range []string{``, `{`, `{"jsonrpc":"2.0","id":1,"method":"x"} x`, `{"a":1}{"b":2}`, strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1)} {
		if _, err := Decode([]byte(c)); !errors.Is(err, ErrParse) {
			t.Errorf("Decode(%.40q) = %v, want ErrParse", c, err)
		}
	}
}

// TestDecodeBatch: a batch decodes as the go-sdk's stdio transport reads one: each element as
// a message, an empty batch or a bad element is an error.
func TestDecodeBatch(t *testing.T) {
	msgs, batch, err := DecodeBatch([]byte(` [ {"jsonrpc":"2.0","id":1,"method":"ping"} , {"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"r","result":{}} ] `))
	if err != nil || !batch || len(msgs) != 3 {
		t.Fatalf("DecodeBatch = %d messages, batch %v, %v", len(msgs), batch, err)
	}
	if !msgs[0].IsRequest() || !msgs[1].IsNotification() || !msgs[2].IsResponse() || string(msgs[2].ID) != `"r"` {
		t.Errorf("kinds: %+v", msgs)
	}
	for _, c := range []string{`[]`, `[1]`, `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"1.0"}]`, `[{"jsonrpc":"2.0","id":1,"method":"ping"}`} {
		if _, batch, err := DecodeBatch([]byte(c)); err == nil || !batch {
			t.Errorf("DecodeBatch(%s) = batch %v, %v; want an error", c, batch, err)
		}
	}
	if msgs, batch, err := DecodeBatch([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)); err != nil || batch || len(msgs) != 1 {
		t.Errorf("one message: %d, batch %v, %v", len(msgs), batch, err)
	}
}

// TestAppendAsTheSDK: the messages the Append functions write are byte for byte the go-sdk's
// jsonrpc.EncodeMessage of the same message.
func TestAppendAsTheSDK(t *testing.T) {
	id := func(v any) jsonrpc.ID { i, _ := jsonrpc.MakeID(v); return i }
	params := json.RawMessage(`{"name":"echo","arguments":{"s":"<&>"}}`)
	for _, c := range []struct {
		got  []byte
		want jsonrpc.Message
	}{
		{AppendRequest(nil, "agentpool-raw-1", "tools/call", params), &jsonrpc.Request{ID: id("agentpool-raw-1"), Method: "tools/call", Params: params}},
		{AppendRequest(nil, "é\"\x01<", "m/\u2028", nil), &jsonrpc.Request{ID: id("é\"\x01<"), Method: "m/\u2028"}},
		{AppendNotification(nil, "notifications/roots/list_changed", nil), &jsonrpc.Request{Method: "notifications/roots/list_changed"}},
		{AppendNotification(nil, "notifications/progress", json.RawMessage(`{"progress":1}`)), &jsonrpc.Request{Method: "notifications/progress", Params: json.RawMessage(`{"progress":1}`)}},
		{AppendResult(nil, json.RawMessage(`7`), json.RawMessage(`{"content":[]}`)), &jsonrpc.Response{ID: id(float64(7)), Result: json.RawMessage(`{"content":[]}`)}},
		{AppendError(nil, json.RawMessage(`"x"`), &jsonrpc.Error{Code: -32601, Message: "no <such> method"}), &jsonrpc.Response{ID: id("x"), Error: &jsonrpc.Error{Code: -32601, Message: "no <such> method"}}},
		{AppendError(nil, json.RawMessage(`1`), &jsonrpc.Error{Code: 5, Message: "m", Data: json.RawMessage(`{"a":1}`)}), &jsonrpc.Response{ID: id(float64(1)), Error: &jsonrpc.Error{Code: 5, Message: "m", Data: json.RawMessage(`{"a":1}`)}}},
		{AppendCancelled(nil, "agentpool-raw-2", "context canceled"), &jsonrpc.Request{Method: "notifications/cancelled", Params: json.RawMessage(`{"requestId":"agentpool-raw-2","reason":"context canceled"}`)}},
	} {
		want, err := jsonrpc.EncodeMessage(c.want)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(c.got, want) {
			t.Errorf("wire:   %s\ngo-sdk: %s", c.got, want)
		}
		checkAgainstSDK(t, c.got)
	}
	// An error answering an unreadable id has a null id, as JSON-RPC requires.
	if got := AppendError(nil, nil, &jsonrpc.Error{Code: CodeParseError, Message: "parse error"}); string(got) != `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}` {
		t.Errorf("null id: %s", got)
	}
}

// TestCutResult: the usual form of a response is cut without decoding; anything else is left
// to Decode.
func TestCutResult(t *testing.T) {
	n, res, ok := CutResult([]byte(`{"jsonrpc":"2.0","id":"agentpool-raw-17","result":{"a":[1]}}`+" \r"), "agentpool-raw-")
	if !ok || n != 17 || string(res) != `{"a":[1]}` {
		t.Fatalf("CutResult = %d, %s, %v", n, res, ok)
	}
	for _, c := range []string{
		`{"jsonrpc":"2.0","id":"agentpool-raw-","result":{}}`,
		`{"jsonrpc":"2.0","id":"agentpool-raw-1x","result":{}}`,
		`{"jsonrpc":"2.0","id":"agentpool-raw-07","result":{}}`,
		`{"jsonrpc":"2.0","id":"agentpool-raw-18446744073709551616","result":{}}`,
		`{"jsonrpc":"2.0","id":"other-1","result":{}}`,
		`{"jsonrpc":"2.0","id":"agentpool-raw-1","error":{"code":1,"message":"m"}}`,
		`{"jsonrpc":"2.0","id":"agentpool-raw-1","result":{}},"x":1}`,
		`{"jsonrpc":"2.0","id":"agentpool-raw-1","result":{}`,
		`{"id":"agentpool-raw-1","jsonrpc":"2.0","result":{}}`,
	} {
		if _, _, ok := CutResult([]byte(c), "agentpool-raw-"); ok {
			t.Errorf("CutResult(%s) read it", c)
		}
	}
}

// TestNumberedID: AppendNumberedRequest writes an id that Decode reads as prefix+n and that
// NumberedID reads back as n; NumberedID reads no other form of the number.
func TestNumberedID(t *testing.T) {
	for _, n := range []uint64{0, 7, 1234567890, math.MaxUint64} {
		m, err := Decode(AppendNumberedRequest(nil, "p-", n, "tools/call", json.RawMessage(`{}`)))
		id, _ := m.SDKID().Raw().(string)
		if err != nil || id != "p-"+strconv.FormatUint(n, 10) || m.Method != "tools/call" || string(m.Params) != `{}` {
			t.Fatalf("%d: %+v, %v", n, m, err)
		}
		if got, ok := NumberedID(id, "p-"); !ok || got != n {
			t.Errorf("NumberedID(%q) = %d, %v", id, got, ok)
		}
	}
	for _, id := range []string{"p-", "p-01", "p--1", "p-+1", "p-1 ", "q-1", "p-18446744073709551616", "p-99999999999999999999"} {
		if n, ok := NumberedID(id, "p-"); ok {
			t.Errorf("NumberedID(%q) = %d", id, n)
		}
	}
}

// Decoding a request of a method the go-sdk knows makes no string of its name.
func TestDecodeKnownMethodAllocations(t *testing.T) {
	raw := json.RawMessage(`"tools/call"`)
	if n := testing.AllocsPerRun(100, func() { _, _ = methodName(raw) }); n != 0 {
		t.Errorf("%v allocations reading a known method's name, want none", n)
	}
	for data, want := range map[string]string{
		`{"jsonrpc":"2.0","id":7,"method":"tools/call"}`:  "tools/call",
		`{"jsonrpc":"2.0","id":7,"method":"tools\/call"}`: "tools/call",
		`{"jsonrpc":"2.0","id":7,"method":"tools/cal"}`:   "tools/cal",
	} {
		if m, err := Decode([]byte(data)); err != nil || m.Method != want {
			t.Errorf("%s: %q, %v", data, m.Method, err)
		}
	}
}

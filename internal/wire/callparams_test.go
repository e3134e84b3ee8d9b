package wire

import (
	"bytes"
	"encoding/json"
	"testing"
)

var callParamsCases = []string{
	`{"name":"echo","arguments":{"text":"ping"}}`,
	` { "name" : "echo" , "arguments" : { "text" : "a\"b" } , "_meta" : {"progressToken":1} } `,
	`{"name":"echo"}`,
	`{}`,
	`{"name":null,"arguments":null,"_meta":null}`,
	`{"name":"a","name":"b"}`,
	`{"name":"a","name":null}`,
	`{"arguments":{"a":1},"arguments":[2]}`,
	`{"name":"\u00e9cho\n"}`,
	`{"na\u006de":"echo"}`,
	`{"NAME":"echo"}`,
	`{"name":"echo","Name":"other"}`,
	`{"argumentſ":{}}`,
	`{"name":1}`,
	`{"name":{"x":1}}`,
	`{"name":true,"arguments":{}}`,
	`{"other":{"name":"x"},"name":"echo"}`,
	`[]`,
	`null`,
	`"x"`,
	`12`,
}

// checkCallParams fails t unless DecodeCallParams reads data as json.Unmarshal does.
func checkCallParams(t *testing.T, data []byte) {
	t.Helper()
	var want CallParams
	got, gerr := DecodeCallParams(data)
	werr := json.Unmarshal(data, &want)
	if (gerr == nil) != (werr == nil) {
		t.Fatalf("%s: DecodeCallParams error %v, json.Unmarshal %v", data, gerr, werr)
	}
	if gerr != nil {
		return
	}
	if got.Name != want.Name || !bytes.Equal(got.Arguments, want.Arguments) || !bytes.Equal(got.Meta, want.Meta) ||
		(got.Arguments == nil) != (want.Arguments == nil) || (got.Meta == nil) != (want.Meta == nil) {
		t.Fatalf("%s: DecodeCallParams %+v, json.Unmarshal %+v", data, got, want)
	}
}

func TestDecodeCallParamsAsUnmarshal(t *testing.T) {
	for _, c := range callParamsCases {
		checkCallParams(t, []byte(c))
	}
}

// A call's params in the usual form are read without reflection: the name is the only
// allocation.
func TestDecodeCallParamsAllocations(t *testing.T) {
	data := []byte(`{"name":"fault__echo","arguments":{"text":"ping"}}`)
	if n := testing.AllocsPerRun(100, func() { _, _ = DecodeCallParams(data) }); n > 1 {
		t.Errorf("%v allocations, want at most 1", n)
	}
}

func TestAcceptsJSON(t *testing.T) {
	for _, c := range []struct {
		values []string
		want   bool
	}{
		{[]string{"application/json, text/event-stream"}, true},
		{[]string{"text/event-stream", " Application/JSON ;q=0.5"}, true},
		{[]string{"text/event-stream,application/*"}, true},
		{[]string{"*/*"}, true},
		{[]string{"text/event-stream"}, false},
		{[]string{"application/jsonx,,"}, false},
		{nil, false},
	} {
		if got := AcceptsJSON(c.values); got != c.want {
			t.Errorf("AcceptsJSON(%q) = %v, want %v", c.values, got, c.want)
		}
	}
}

// PlainMeta reads _meta as the go-sdk does (a map: member names exactly, the last of a name
// given twice): a progress token it would honour keeps a call off the pass-through.
func TestPlainMeta(t *testing.T) {
	for _, c := range []struct {
		meta string
		want bool
	}{
		{``, true},
		{`null`, true},
		{`{}`, true},
		{`{"k":"v"}`, true},
		{`{"progressToken":null}`, true},
		{`{"progressToken":1}`, false},
		{`{"progressToken":"t"}`, false},
		{`{"progress\u0054oken":1}`, false},
		{`{"progressToken":1,"progresstoken":null}`, false},
		{`{"progressToken":1,"PROGRESSTOKEN":null}`, false},
		{`{"PROGRESSTOKEN":1}`, true},
		{`{"progressToken":null,"progressToken":1}`, false},
		{`{"progressToken":1,"progressToken":null}`, true},
		{`{"io.modelcontextprotocol/protocolVersion":"2025-06-18"}`, false},
		{`[]`, false},
		{`1`, false},
	} {
		if got := PlainMeta(json.RawMessage(c.meta)); got != c.want {
			t.Errorf("PlainMeta(%s) = %v, want %v", c.meta, got, c.want)
		}
	}
}

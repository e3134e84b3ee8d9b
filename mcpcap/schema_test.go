package mcpcap

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestToolEntryInputSchema: a tool's input schema always has "type": "object" (clients reject
// a tool without it): a missing or empty schema becomes {"type":"object"}, a type-less object
// schema gets the type added with every other key kept, and a typed schema is left alone.
func TestToolEntryInputSchema(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   any
		want string
	}{
		{"missing", nil, `{"type":"object"}`},
		{"empty map", map[string]any{}, `{"type":"object"}`},
		{"empty raw", json.RawMessage(`{}`), `{"type":"object"}`},
		{"type-less", map[string]any{"properties": map[string]any{"a": map[string]any{"type": "string"}}, "x-extra": true},
			`{"properties":{"a":{"type":"string"}},"type":"object","x-extra":true}`},
		{"typed", map[string]any{"type": "object", "required": []any{"a"}}, `{"required":["a"],"type":"object"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := toolEntry(&mcp.Tool{Name: "t", InputSchema: tc.in})
			var got, want any
			if err := json.Unmarshal(e.InputSchema, &got); err != nil {
				t.Fatalf("InputSchema %q: %v", e.InputSchema, err)
			}
			_ = json.Unmarshal([]byte(tc.want), &want)
			gb, _ := json.Marshal(got)
			wb, _ := json.Marshal(want)
			if string(gb) != string(wb) {
				t.Fatalf("InputSchema = %s; want %s", gb, wb)
			}
		})
	}
}

package ext

import (
	"encoding/json"
	"testing"
)

// An empty text item keeps "text" on the wire, where MCP requires it.
func TestContentEmptyTextMarshals(t *testing.T) {
	b, err := json.Marshal(Content{Type: ContentText})
	if err != nil || string(b) != `{"text":"","type":"text"}` {
		t.Fatalf("marshal = %s, %v", b, err)
	}
	var back Content
	if err := json.Unmarshal(b, &back); err != nil || back.Type != ContentText || back.Text != "" {
		t.Fatalf("unmarshal = %+v, %v", back, err)
	}
	b, _ = json.Marshal(Content{Type: ContentImage, MIMEType: "image/png", Data: []byte{1}})
	if string(b) != `{"type":"image","data":"AQ==","mimeType":"image/png"}` {
		t.Fatalf("image = %s", b)
	}
}

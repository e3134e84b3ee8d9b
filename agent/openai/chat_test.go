package openai_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/agent/openai"
	"github.com/agentpool/agentpool/ext"
)

// An empty model answer (no text, no tool call) ends a run, and is in the next turn's
// history. The chat API requires an assistant message's content unless it has tool_calls:
// the message went as {"role":"assistant"} and the endpoint rejected the next turn.
func TestChatAssistantMessageHasContent(t *testing.T) {
	req := &agent.Request{Messages: []agent.Message{agent.UserMessage("hi"), {Role: agent.RoleAssistant}, agent.UserMessage("well?")}}
	b, err := json.Marshal(openai.ChatParams("m", req))
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Messages []map[string]json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	for i, m := range p.Messages {
		if string(m["role"]) == `"assistant"` && m["content"] == nil && m["tool_calls"] == nil {
			t.Errorf("message %d has neither content nor tool_calls: %s", i, b)
		}
	}
}

// A refusal comes in its own field, content null: it was dropped, and the run ended with an
// empty answer. It is the model's answer.
func TestRefusalIsTheAnswer(t *testing.T) {
	refusal := func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"c1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"stop",`+
			`"message":{"role":"assistant","content":null,"refusal":"I can't help with that."}}]}`)
	}
	s := newChatServer(t, refusal, sse(
		toolChunk(`{"role":"assistant","content":null,"refusal":"I can't "}`),
		toolChunk(`{"refusal":"help with that."}`),
	))
	m := s.model(t, openai.Options{})
	resp, err := m.Generate(context.Background(), req("x"))
	if err != nil || resp.Text != "I can't help with that." {
		t.Errorf("Generate = %+v, %v", resp, err)
	}
	var deltas []string
	resp, err = m.Stream(context.Background(), req("x"), func(d string) { deltas = append(deltas, d) })
	if err != nil || resp.Text != "I can't help with that." || len(deltas) != 2 {
		t.Errorf("Stream = %+v, %v; deltas %q", resp, err, deltas)
	}
}

// OpenAI takes PNG, JPEG, GIF and WebP images only, and rejects the whole request for
// another (an SVG an MCP server returns): since the result stays in the history, every
// later turn failed too. Another type is a note, as in the anthropic adapter.
func TestUnsupportedImageTypeIsANote(t *testing.T) {
	svg := []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`)
	req := &agent.Request{Messages: []agent.Message{
		agent.UserMessage("draw"),
		{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: "c1", Name: "draw", Arguments: json.RawMessage(`{}`)}}},
		{Role: agent.RoleTool, ToolCallID: "c1", ToolName: "draw", Content: []ext.Content{
			{Type: ext.ContentImage, MIMEType: "image/svg+xml", Data: svg},
			{Type: ext.ContentResource, Resource: &ext.ResourceContents{URI: "file:///a.bmp", MIMEType: "image/bmp", Blob: []byte("BM")}},
			{Type: ext.ContentImage, MIMEType: "image/png", Data: []byte("\x89PNG")},
		}},
	}}
	chat, err := json.Marshal(openai.ChatParams("m", req))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := json.Marshal(openai.ResponsesParams("m", req))
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"chat": chat, "responses": resp} {
		s := string(b)
		if strings.Contains(s, "data:image/svg") || strings.Contains(s, "data:image/bmp") {
			t.Errorf("%s: an unsupported image type is sent as an image: %s", name, s)
		}
		if !strings.Contains(s, "data:image/png") || !strings.Contains(s, "image/svg+xml") || !strings.Contains(s, "image/bmp") {
			t.Errorf("%s: the PNG is not sent, or the others not noted: %s", name, s)
		}
	}
}

package openai_test

import (
	"encoding/json"
	"testing"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/agent/openai"
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

package anthropic_test

import (
	"encoding/json"
	"testing"

	"github.com/agentpool/agentpool/agent"
)

// The API rejects empty text blocks ("text content blocks must be non-empty") and messages
// without content: an empty prompt, a tool's empty text, an empty model answer.
func TestNoEmptyTextBlocksOrMessages(t *testing.T) {
	msgs := []agent.Message{
		agent.UserMessage("go"),
		{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: "a", Name: "echo", Arguments: json.RawMessage(`{}`)}}},
		{Role: agent.RoleTool, ToolCallID: "a", ToolName: "echo", Content: textContent(""), IsError: true},
		{Role: agent.RoleAssistant, Content: textContent("ok")},
		agent.UserMessage(""),       // a turn with an empty prompt
		{Role: agent.RoleAssistant}, // the model said nothing
		agent.UserMessage("again"),
	}
	var check func(where string, bs []sentBlock)
	check = func(where string, bs []sentBlock) {
		for _, b := range bs {
			if b.Type == "text" && (b.Text == nil || *b.Text == "") {
				t.Errorf("%s: empty text block", where)
			}
			check(where+" tool_result", b.Content)
		}
	}
	for i, m := range sentMessages(t, msgs) {
		if len(m.Content) == 0 {
			t.Errorf("message %d (%s) has no content", i, m.Role)
		}
		check(m.Role, m.Content)
	}
}

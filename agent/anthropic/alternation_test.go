package anthropic_test

import (
	"encoding/json"
	"testing"

	"github.com/agentpool/agentpool/agent"
)

// A run stopped at its step limit ends with tool results; the next turn's prompt follows
// them. The API wants user and assistant to alternate: one user message, results first.
func TestRolesAlternate(t *testing.T) {
	msgs := []agent.Message{
		agent.UserMessage("go"),
		{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: "a", Name: "echo", Arguments: json.RawMessage(`{}`)}}},
		{Role: agent.RoleTool, ToolCallID: "a", ToolName: "echo", Content: textContent("{}")},
		agent.UserMessage("go on"),
	}
	sent := sentMessages(t, msgs)
	for i := 1; i < len(sent); i++ {
		if sent[i-1].Role == sent[i].Role {
			t.Errorf("messages %d and %d are both %s", i-1, i, sent[i].Role)
		}
	}
	if last := sent[len(sent)-1]; len(last.Content) != 2 || last.Content[0].Type != "tool_result" || last.Content[1].Type != "text" {
		t.Errorf("last message = %+v, want the tool result then the prompt", last)
	}
}

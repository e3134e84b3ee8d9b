package anthropic_test

import (
	"encoding/json"
	"testing"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/agent/anthropic"
	"github.com/agentpool/agentpool/ext"
)

type sentMessage struct {
	Role    string      `json:"role"`
	Content []sentBlock `json:"content"`
}

type sentBlock struct {
	Type    string          `json:"type"`
	Text    *string         `json:"text"`
	Input   json.RawMessage `json:"input"`
	Content []sentBlock     `json:"content"`
}

// sentMessages sends msgs with the SDK to a local server and returns the messages of the body.
func sentMessages(t *testing.T, msgs []agent.Message) []sentMessage {
	t.Helper()
	body, _ := send(t, anthropic.Params("claude-test", 1024, &agent.Request{Messages: msgs}), answer)
	var req struct {
		Messages []sentMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	return req.Messages
}

func textContent(s string) []ext.Content { return []ext.Content{{Type: ext.ContentText, Text: s}} }

// Arguments that were not JSON reach the conversation as a JSON string (agent tells the model
// they are not an object); the API wants a tool_use input to be an object.
func TestToolUseInputIsAnObject(t *testing.T) {
	msgs := []agent.Message{
		agent.UserMessage("go"),
		{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: "a", Name: "echo", Arguments: json.RawMessage(`"{not json"`)}}},
		{Role: agent.RoleTool, ToolCallID: "a", ToolName: "echo", Content: textContent("not an object"), IsError: true},
	}
	for _, m := range sentMessages(t, msgs) {
		for _, b := range m.Content {
			if b.Type == "tool_use" && (len(b.Input) == 0 || b.Input[0] != '{') {
				t.Errorf("tool_use input %s is not an object", b.Input)
			}
		}
	}
}

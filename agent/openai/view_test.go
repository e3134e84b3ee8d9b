package openai_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/agent/internal/adaptertest"
	"github.com/agentpool/agentpool/agent/openai"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/view"
)

// TestViewDirect is the few lines a caller driving openai-go itself writes: the view's tools
// as params, a call made through the view, its result as a tool message.
func TestViewDirect(t *testing.T) {
	ctx := context.Background()
	v, err := view.Compile(ctx, adaptertest.Registry(t), ext.Scope{SessionID: "s1", AgentName: "main"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := openai.ChatTools(agent.ToolDefs(v))
	if len(tools) != len(v.Tools) {
		t.Fatalf("%d tools for a view of %d", len(tools), len(v.Tools))
	}
	b, err := json.Marshal(tools)
	if err != nil {
		t.Fatal(err)
	}
	var sent []struct {
		Function struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"function"`
	}
	if err := json.Unmarshal(b, &sent); err != nil {
		t.Fatal(err)
	}
	for _, s := range sent {
		if s.Function.Name == "search" && !jsonEqual(t, s.Function.Parameters, []byte(adaptertest.SearchSchema)) {
			t.Errorf("search parameters %s, want the server's schema %s", s.Function.Parameters, adaptertest.SearchSchema)
		}
	}

	res, err := v.CallTool(ctx, &ext.ToolCall{Name: "fails"})
	if err != nil {
		t.Fatal(err)
	}
	msgs := openai.ChatMessages(&agent.Request{Messages: []agent.Message{
		{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: "c1", Name: "fails"}}},
		agent.ToolMessage("c1", "fails", res),
	}})
	tool := msgs[len(msgs)-1].OfTool
	if tool == nil || tool.ToolCallID != "c1" || tool.Content.OfString.Value != "Error: no such city" {
		t.Errorf("tool message %+v, want the error result", msgs[len(msgs)-1])
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return string(xb) == string(yb)
}

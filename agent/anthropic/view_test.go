package anthropic_test

import (
	"context"
	"testing"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/agent/anthropic"
	"github.com/agentpool/agentpool/agent/internal/adaptertest"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/view"
)

// TestViewDirect is the few lines a caller driving anthropic-sdk-go itself writes: the view's
// tools as params, a call made through the view, its result as a tool_result block.
func TestViewDirect(t *testing.T) {
	ctx := context.Background()
	v, err := view.Compile(ctx, adaptertest.Registry(t), ext.Scope{SessionID: "s1", AgentName: "main"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := anthropic.Tools(agent.ToolDefs(v))
	if len(tools) != len(v.Tools) || tools[0].OfTool == nil || tools[0].OfTool.Name != v.Tools[0].Name {
		t.Fatalf("tools %+v for view tools %+v", tools, v.Tools)
	}
	res, err := v.CallTool(ctx, &ext.ToolCall{Name: "fails"})
	if err != nil {
		t.Fatal(err)
	}
	msgs := anthropic.Messages([]agent.Message{
		{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: "c1", Name: "fails"}}},
		agent.ToolMessage("c1", "fails", res),
	})
	tr := msgs[1].OfUser.Content[0].OfToolResult
	if tr == nil || tr.ToolUseID != "c1" || !tr.IsError.Value || tr.Content[0].OfText.Text != "no such city" {
		t.Errorf("tool result %+v, want the error result", msgs[1])
	}
}

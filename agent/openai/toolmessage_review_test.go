package openai_test

import (
	"testing"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/agent/openai"
)

// View.CallTool passes on what the capability answered, which may be no result (nil, nil);
// package agent takes that as an empty result, and so does ToolMessage, without panicking.
func TestToolMessageOfNoResult(t *testing.T) {
	m := openai.ToolMessage("c1", "nothing", nil)
	if m.Role != agent.RoleTool || m.ToolCallID != "c1" || m.ToolName != "nothing" || len(m.Content) != 0 || m.IsError {
		t.Errorf("ToolMessage = %+v", m)
	}
}

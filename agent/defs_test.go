package agent_test

import (
	"testing"

	"github.com/agentpool/agentpool/agent"
)

// View.CallTool passes on what the capability answered, which may be no result (nil, nil);
// ToolMessage takes that as an empty result, as Run does, without panicking.
func TestToolMessageOfNoResult(t *testing.T) {
	m := agent.ToolMessage("c1", "nothing", nil)
	if m.Role != agent.RoleTool || m.ToolCallID != "c1" || m.ToolName != "nothing" || len(m.Content) != 0 || m.IsError {
		t.Errorf("ToolMessage = %+v", m)
	}
}

package openai

import (
	"encoding/json"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/view"
)

// ToolDefs returns v's tools as agent.ToolDefs, the form this package's functions take, for a
// caller that drives the SDK itself rather than through agent.Run (which adds its own tools,
// read_resource and the like). Schemas pass through; a tool without one gets
// {"type":"object"}, as agent does. v.Instructions are agent.Instructions{Static, Dynamic}.
func ToolDefs(v *view.View) []agent.ToolDef {
	out := make([]agent.ToolDef, 0, len(v.Tools))
	for _, t := range v.Tools {
		s := t.Entry.InputSchema
		if len(s) == 0 {
			s = json.RawMessage(`{"type":"object"}`)
		}
		out = append(out, agent.ToolDef{Name: t.Name, Description: t.Entry.Description, InputSchema: s,
			Annotations: t.Entry.Annotations, Origin: t.Origin})
	}
	return out
}

// ToolMessage returns the result of a call made through a view (View.CallTool) as the tool
// message that answers callID. A nil res (a capability that answered nothing) is an empty
// result.
func ToolMessage(callID, name string, res *ext.ToolResult) agent.Message {
	if res == nil {
		res = &ext.ToolResult{}
	}
	return agent.Message{Role: agent.RoleTool, ToolCallID: callID, ToolName: name, Content: res.Content,
		IsError: res.IsError, StructuredContent: res.StructuredContent}
}

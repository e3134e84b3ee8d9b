package agent

import (
	"encoding/json"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/view"
)

// ToolDefOf returns a view's tool as the model is offered it: its schema passed through
// ($defs, enums and all), {"type":"object"} for a tool that declared none. Run offers every
// tool of the view this way; a caller driving an SDK itself (through an adapter's params
// functions) uses ToolDefs.
func ToolDefOf(t view.Tool) ToolDef {
	schema := t.Entry.InputSchema
	if len(schema) == 0 {
		schema = json.RawMessage(`{"type":"object"}`)
	}
	return ToolDef{Name: t.Name, Description: t.Entry.Description, InputSchema: schema,
		Annotations: t.Entry.Annotations, Origin: t.Origin}
}

// ToolDefs returns every tool of v as ToolDefOf does (without the agent's own tools, which
// Run adds).
func ToolDefs(v *view.View) []ToolDef {
	out := make([]ToolDef, 0, len(v.Tools))
	for _, t := range v.Tools {
		out = append(out, ToolDefOf(t))
	}
	return out
}

// ToolMessage returns the result of a call made through a view (View.CallTool) as the tool
// message that answers callID, as Run builds it. A nil res (a capability that answered
// nothing) is an empty result.
func ToolMessage(callID, name string, res *ext.ToolResult) Message {
	return resultMessage(Message{Role: RoleTool, ToolCallID: callID, ToolName: name}, res)
}

package agent

import (
	"encoding/json"
	"fmt"
	"strings"

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

// LinkText is how a resource link reads for a model whose API has no such content kind: the
// URI first, since read_resource takes it, then whichever of name, title, description, MIME
// type and size the link has ("[resource link: mcp://docs/a.md; name: a.md; size: 12]").
// The adapters use it, so every provider sees a link the same way.
func LinkText(c ext.Content) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[resource link: %s", c.URI)
	for _, kv := range [][2]string{{"name", c.Name}, {"title", c.Title}, {"description", c.Description}, {"mimeType", c.MIMEType}} {
		if kv[1] != "" {
			fmt.Fprintf(&b, "; %s: %s", kv[0], kv[1])
		}
	}
	if c.Size != nil {
		fmt.Fprintf(&b, "; size: %d", *c.Size)
	}
	b.WriteString("]")
	return b.String()
}

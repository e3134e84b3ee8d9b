// Package mcpconv converts the view's and ext's types to the go-sdk's, the reverse of package
// mcpcap's convert.go. Entries (tools, prompts, resources, templates) are converted field by
// field. Results go through their wire JSON, since ext mirrors the MCP wire form and the go-sdk
// decodes every content kind from it: nothing a result carries (annotations, icons, _meta,
// unknown content kinds, structured content) is dropped on the way.
package mcpconv

import (
	"encoding/json"
	"fmt"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/view"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// objectSchema is the input schema given to a tool that declares none; MCP requires one.
var objectSchema = json.RawMessage(`{"type":"object"}`)

// Tool is t as the go-sdk lists it: its served name, its entry's fields, and an object input
// schema when it declares none (MCP requires one).
func Tool(t *view.Tool) *mcp.Tool {
	e := t.Entry
	out := &mcp.Tool{
		Name:        t.Name,
		Title:       e.Title,
		Description: e.Description,
		InputSchema: objectSchema,
		Icons:       mcpIcons(e.Icons),
		Meta:        metaOf(e.Meta),
	}
	if len(e.InputSchema) > 0 {
		out.InputSchema = e.InputSchema
	}
	if len(e.OutputSchema) > 0 {
		out.OutputSchema = e.OutputSchema
	}
	if a := e.Annotations; a != nil {
		out.Annotations = &mcp.ToolAnnotations{Title: a.Title, ReadOnlyHint: a.ReadOnlyHint,
			DestructiveHint: a.DestructiveHint, IdempotentHint: a.IdempotentHint, OpenWorldHint: a.OpenWorldHint}
	}
	return out
}

// lineArgument is the one argument of a command that takes a command line (a skill, a command
// file): package view passes Named["arguments"] to it as the line, split shell-style.
const lineArgument = "arguments"

// Prompt is c as a prompt: its MCP arguments, or, for a command that takes a command line, the
// one argument "arguments" holding it.
func Prompt(c *view.Command) *mcp.Prompt {
	out := &mcp.Prompt{Name: c.Name, Title: c.Title, Description: c.Description, Icons: mcpIcons(c.Icons), Meta: metaOf(c.Meta)}
	for _, a := range c.Arguments {
		out.Arguments = append(out.Arguments, &mcp.PromptArgument{Name: a.Name, Title: a.Title, Description: a.Description, Required: a.Required})
	}
	if len(c.Arguments) == 0 && c.Source != view.SourceMCP {
		desc := c.ArgumentHint
		if desc == "" {
			desc = "the command's arguments, as typed after /" + c.Name
		}
		out.Arguments = []*mcp.PromptArgument{{Name: lineArgument, Description: desc}}
	}
	return out
}

// Resource is r as the go-sdk lists it.
func Resource(r *view.Resource) *mcp.Resource {
	return &mcp.Resource{URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description,
		MIMEType: r.MIMEType, Size: r.Size, Icons: mcpIcons(r.Icons), Annotations: annotationsOf(r.Annotations), Meta: metaOf(r.Meta)}
}

// Template is t as the go-sdk lists it.
func Template(t *view.Template) *mcp.ResourceTemplate {
	return &mcp.ResourceTemplate{URITemplate: t.URITemplate, Name: t.Name, Title: t.Title, Description: t.Description,
		MIMEType: t.MIMEType, Icons: mcpIcons(t.Icons), Annotations: annotationsOf(t.Annotations), Meta: metaOf(t.Meta)}
}

func mcpIcons(in []ext.Icon) []mcp.Icon {
	if len(in) == 0 {
		return nil
	}
	out := make([]mcp.Icon, len(in))
	for i, ic := range in {
		out[i] = mcp.Icon{Source: ic.Src, MIMEType: ic.MIMEType, Sizes: ic.Sizes, Theme: mcp.IconTheme(ic.Theme)}
	}
	return out
}

// metaOf decodes _meta one level deep, each value kept as its raw JSON so that numbers keep
// their digits; nil or malformed is nil.
func metaOf(raw json.RawMessage) mcp.Meta {
	var fields map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &fields) != nil || len(fields) == 0 {
		return nil
	}
	m := make(mcp.Meta, len(fields))
	for k, v := range fields {
		m[k] = v
	}
	return m
}

func annotationsOf(raw json.RawMessage) *mcp.Annotations {
	if len(raw) == 0 {
		return nil
	}
	var a mcp.Annotations
	if json.Unmarshal(raw, &a) != nil {
		return nil
	}
	return &a
}

// RawMeta is the reverse of metaOf, for a caller's _meta going to a capability.
func RawMeta(m mcp.Meta) json.RawMessage {
	if len(m) == 0 {
		return nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil
	}
	return b
}

// unwrapRaw restores content that package mcpcap kept as its wire JSON in _meta "raw" because
// ext has no kind for it (tool_use, tool_result), so it leaves the gateway as it came in.
func unwrapRaw(cs []ext.Content) []any {
	out := make([]any, len(cs))
	for i, c := range cs {
		out[i] = c
		switch c.Type {
		case ext.ContentText, ext.ContentImage, ext.ContentAudio, ext.ContentResourceLink, ext.ContentResource:
			continue
		}
		var m struct {
			Raw json.RawMessage `json:"raw"`
		}
		if json.Unmarshal(c.Meta, &m) == nil && len(m.Raw) > 0 {
			out[i] = m.Raw
		}
	}
	return out
}

// ToolResult is r as the go-sdk sends it, through its wire JSON: every content kind, _meta,
// structured content and isError kept.
func ToolResult(r *ext.ToolResult) (*mcp.CallToolResult, error) {
	wire := struct {
		Content           []any           `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
		IsError           bool            `json:"isError,omitempty"`
		Meta              json.RawMessage `json:"_meta,omitempty"`
	}{unwrapRaw(r.Content), r.StructuredContent, r.IsError, r.Meta}
	b, err := json.Marshal(wire)
	if err != nil {
		return nil, fmt.Errorf("encode tool result: %w", err)
	}
	var out mcp.CallToolResult
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("decode tool result: %w", err)
	}
	if len(r.StructuredContent) > 0 {
		out.StructuredContent = r.StructuredContent // as it came: key order and digits kept
	}
	return &out, nil
}

// PromptResult is r as the go-sdk sends it, through its wire JSON.
func PromptResult(r *ext.PromptResult) (*mcp.GetPromptResult, error) {
	type msg struct {
		Role    string `json:"role"`
		Content any    `json:"content"`
	}
	wire := struct {
		Description string          `json:"description,omitempty"`
		Messages    []msg           `json:"messages"`
		Meta        json.RawMessage `json:"_meta,omitempty"`
	}{Description: r.Description, Messages: make([]msg, len(r.Messages)), Meta: r.Meta}
	for i, m := range r.Messages {
		wire.Messages[i] = msg{Role: m.Role, Content: unwrapRaw([]ext.Content{m.Content})[0]}
	}
	b, err := json.Marshal(wire)
	if err != nil {
		return nil, fmt.Errorf("encode prompt result: %w", err)
	}
	var out mcp.GetPromptResult
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("decode prompt result: %w", err)
	}
	return &out, nil
}

// Contents are cs as a resources/read result holds them.
func Contents(cs []ext.ResourceContents) []*mcp.ResourceContents {
	out := make([]*mcp.ResourceContents, len(cs))
	for i, c := range cs {
		out[i] = &mcp.ResourceContents{URI: c.URI, MIMEType: c.MIMEType, Text: c.Text, Blob: c.Blob, Meta: metaOf(c.Meta)}
	}
	return out
}

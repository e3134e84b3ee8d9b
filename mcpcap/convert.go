package mcpcap

import (
	"encoding/json"

	"github.com/agentpool/agentpool/ext"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// This file converts go-sdk types to ext types losslessly: every content kind, annotations,
// icons, structured content, isError and _meta. Maps and schemas are kept as raw JSON.

// rawJSON marshals v, returning nil for nil, empty maps and values that do not marshal.
func rawJSON(v any) json.RawMessage {
	switch x := v.(type) {
	case nil:
		return nil
	case json.RawMessage:
		return x
	case mcp.Meta:
		if len(x) == 0 {
			return nil
		}
	case map[string]any:
		if len(x) == 0 {
			return nil
		}
	case *mcp.Annotations:
		if x == nil {
			return nil
		}
	}
	b, err := json.Marshal(v)
	if err != nil || string(b) == "null" {
		return nil
	}
	return b
}

// structured marshals a result's structured content. Unlike rawJSON it keeps an empty object
// or array: structured content may be any JSON value (SEP-2106), and {} is an answer to an
// output schema, not the absence of one. Only an absent (or null) value is nil.
func structured(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil || string(b) == "null" {
		return nil
	}
	return b
}

// objectSchema is the input schema of a tool that declares none: no arguments.
var objectSchema = json.RawMessage(`{"type":"object"}`)

// inputSchema marshals a tool's input schema so that it is always an object schema with
// "type": "object": MCP requires it, and clients (the SDKs included) reject a tool without it,
// yet servers send inputSchema: {} or leave it out. A missing or empty schema becomes
// {"type":"object"}; an object schema without "type" gets it, every other key kept; a schema
// with a type, or one that is not a JSON object at all, is passed on as it came.
func inputSchema(v any) json.RawMessage {
	b := structured(v)
	if b == nil {
		return objectSchema
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil || obj == nil {
		return b
	}
	if _, ok := obj["type"]; ok {
		return b
	}
	obj["type"] = json.RawMessage(`"object"`)
	out, err := json.Marshal(obj)
	if err != nil {
		return b
	}
	return out
}

func toolEntry(t *mcp.Tool) ext.ToolEntry {
	e := ext.ToolEntry{
		Name:         t.Name,
		Title:        t.Title,
		Description:  t.Description,
		InputSchema:  inputSchema(t.InputSchema),
		OutputSchema: rawJSON(t.OutputSchema),
		Icons:        icons(t.Icons),
		Meta:         rawJSON(t.Meta),
	}
	if a := t.Annotations; a != nil {
		e.Annotations = &ext.ToolAnnotations{
			Title:           a.Title,
			ReadOnlyHint:    a.ReadOnlyHint,
			DestructiveHint: a.DestructiveHint,
			IdempotentHint:  a.IdempotentHint,
			OpenWorldHint:   a.OpenWorldHint,
		}
	}
	return e
}

func toolResult(r *mcp.CallToolResult) *ext.ToolResult {
	out := &ext.ToolResult{
		Content:           make([]ext.Content, 0, len(r.Content)),
		StructuredContent: structured(r.StructuredContent),
		IsError:           r.IsError,
		Meta:              rawJSON(r.Meta),
	}
	for _, c := range r.Content {
		out.Content = append(out.Content, content(c))
	}
	return out
}

// content converts one content item. Kinds unknown to ext (tool_use, tool_result, which only
// occur in sampling messages) pass through as their wire JSON in Meta under "raw".
func content(c mcp.Content) ext.Content {
	switch x := c.(type) {
	case *mcp.TextContent:
		return ext.Content{Type: ext.ContentText, Text: x.Text, Meta: rawJSON(x.Meta), Annotations: rawJSON(x.Annotations)}
	case *mcp.ImageContent:
		return ext.Content{Type: ext.ContentImage, Data: x.Data, MIMEType: x.MIMEType, Meta: rawJSON(x.Meta), Annotations: rawJSON(x.Annotations)}
	case *mcp.AudioContent:
		return ext.Content{Type: ext.ContentAudio, Data: x.Data, MIMEType: x.MIMEType, Meta: rawJSON(x.Meta), Annotations: rawJSON(x.Annotations)}
	case *mcp.ResourceLink:
		return ext.Content{Type: ext.ContentResourceLink, URI: x.URI, Name: x.Name, Title: x.Title,
			Description: x.Description, MIMEType: x.MIMEType, Size: x.Size, Icons: icons(x.Icons),
			Meta: rawJSON(x.Meta), Annotations: rawJSON(x.Annotations)}
	case *mcp.EmbeddedResource:
		out := ext.Content{Type: ext.ContentResource, Meta: rawJSON(x.Meta), Annotations: rawJSON(x.Annotations)}
		if x.Resource != nil {
			rc := resourceContents(x.Resource)
			out.Resource = &rc
		}
		return out
	}
	b, _ := c.MarshalJSON()
	var head struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(b, &head)
	raw, _ := json.Marshal(map[string]json.RawMessage{"raw": b})
	return ext.Content{Type: head.Type, Meta: raw}
}

func resourceContents(r *mcp.ResourceContents) ext.ResourceContents {
	return ext.ResourceContents{URI: r.URI, MIMEType: r.MIMEType, Text: r.Text, Blob: r.Blob, Meta: rawJSON(r.Meta)}
}

func resourceEntry(r *mcp.Resource) ext.ResourceEntry {
	return ext.ResourceEntry{URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description,
		MIMEType: r.MIMEType, Size: r.Size, Icons: icons(r.Icons), Annotations: rawJSON(r.Annotations), Meta: rawJSON(r.Meta)}
}

func templateEntry(r *mcp.ResourceTemplate) ext.ResourceTemplateEntry {
	return ext.ResourceTemplateEntry{URITemplate: r.URITemplate, Name: r.Name, Title: r.Title,
		Description: r.Description, MIMEType: r.MIMEType, Icons: icons(r.Icons), Annotations: rawJSON(r.Annotations), Meta: rawJSON(r.Meta)}
}

// icons converts MCP icons; none is nil.
func icons(in []mcp.Icon) []ext.Icon {
	if len(in) == 0 {
		return nil
	}
	out := make([]ext.Icon, len(in))
	for i, ic := range in {
		out[i] = ext.Icon{Src: ic.Source, MIMEType: ic.MIMEType, Sizes: ic.Sizes, Theme: string(ic.Theme)}
	}
	return out
}

// promptMessage converts one prompts/get message.
func promptMessage(m *mcp.PromptMessage) ext.PromptMessage {
	out := ext.PromptMessage{Role: string(m.Role)}
	if m.Content != nil {
		out.Content = content(m.Content)
	}
	return out
}

// metaMap decodes a caller's _meta one level deep, keeping each value as its raw JSON so that it
// reaches the server as the caller wrote it (a number through float64 would lose digits); nil or
// malformed is an empty map.
func metaMap(raw json.RawMessage) mcp.Meta {
	m := mcp.Meta{}
	var fields map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &fields) != nil {
		return m
	}
	for k, v := range fields {
		m[k] = v
	}
	return m
}

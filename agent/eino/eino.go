package eino

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/view"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
	"github.com/eino-contrib/jsonschema"
)

// Tool is one tool of a view as an eino tool.InvokableTool: its result is text.
type Tool struct {
	v    *view.View
	name string
	info *schema.ToolInfo
}

// EnhancedTool is one tool of a view as an eino tool.EnhancedInvokableTool: its result keeps
// images, audio and files as parts.
type EnhancedTool struct{ t *Tool }

var (
	_ tool.InvokableTool         = (*Tool)(nil)
	_ tool.EnhancedInvokableTool = (*EnhancedTool)(nil)
)

// Tools returns one tool.InvokableTool per tool of v, in v's order, calling through v (so
// through the capabilities visible when v was compiled). A tool whose input schema eino's
// jsonschema cannot decode is an error naming it.
func Tools(v *view.View) ([]tool.InvokableTool, error) {
	out := make([]tool.InvokableTool, 0, len(v.Tools))
	for _, t := range v.Tools {
		et, err := newTool(v, t)
		if err != nil {
			return nil, err
		}
		out = append(out, et)
	}
	return out, nil
}

// EnhancedTools is Tools for eino's multimodal tool interface.
func EnhancedTools(v *view.View) ([]tool.EnhancedInvokableTool, error) {
	out := make([]tool.EnhancedInvokableTool, 0, len(v.Tools))
	for _, t := range v.Tools {
		et, err := newTool(v, t)
		if err != nil {
			return nil, err
		}
		out = append(out, &EnhancedTool{et})
	}
	return out, nil
}

func newTool(v *view.View, t view.Tool) (*Tool, error) {
	info := &schema.ToolInfo{Name: t.Name, Desc: t.Entry.Description}
	if raw := t.Entry.InputSchema; len(raw) > 0 {
		var s jsonschema.Schema
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("eino: tool %s: input schema: %w", t.Name, err)
		}
		info.ParamsOneOf = schema.NewParamsOneOfByJSONSchema(&s)
	}
	return &Tool{v: v, name: t.Name, info: info}, nil
}

// Info returns the tool's name, description and input schema (the server's, decoded by
// eino's jsonschema).
func (t *Tool) Info(context.Context) (*schema.ToolInfo, error) { return t.info, nil }

// Info is Tool.Info.
func (e *EnhancedTool) Info(ctx context.Context) (*schema.ToolInfo, error) { return e.t.Info(ctx) }

// call calls the tool through the view. A call that could not be made is an error; a
// result with isError is a result, for the model to read.
func (t *Tool) call(ctx context.Context, args string) (*ext.ToolResult, error) {
	var raw json.RawMessage
	if strings.TrimSpace(args) != "" {
		raw = json.RawMessage(args)
	}
	res, err := t.v.CallTool(ctx, &ext.ToolCall{Name: t.name, Arguments: raw})
	if err != nil {
		return nil, fmt.Errorf("eino: tool %s: %w", t.name, err)
	}
	if res == nil {
		res = &ext.ToolResult{} // no result: an empty one, as package agent takes it
	}
	return res, nil
}

// InvokableRun calls the tool with its JSON arguments and returns its result as text (see
// the package doc for each content kind).
func (t *Tool) InvokableRun(ctx context.Context, argumentsInJSON string, _ ...tool.Option) (string, error) {
	res, err := t.call(ctx, argumentsInJSON)
	if err != nil {
		return "", err
	}
	var texts []string
	for _, p := range parts(res) {
		if p.Type == schema.ToolPartTypeText {
			texts = append(texts, p.Text)
			continue
		}
		texts = append(texts, fmt.Sprintf("[%s %s, %d bytes: not in a text result]", p.Type, p.mimeType, p.size))
	}
	return strings.Join(texts, "\n"), nil
}

// InvokableRun calls the tool and returns its result as parts.
func (e *EnhancedTool) InvokableRun(ctx context.Context, arg *schema.ToolArgument, _ ...tool.Option) (*schema.ToolResult, error) {
	var args string
	if arg != nil {
		args = arg.Text
	}
	res, err := e.t.call(ctx, args)
	if err != nil {
		return nil, err
	}
	out := &schema.ToolResult{}
	for _, p := range parts(res) {
		out.Parts = append(out.Parts, p.ToolOutputPart)
	}
	return out, nil
}

// part is a tool output part, with its binary's MIME type and size for a text note.
type part struct {
	schema.ToolOutputPart
	mimeType string
	size     int
}

func text(s string) part {
	return part{ToolOutputPart: schema.ToolOutputPart{Type: schema.ToolPartTypeText, Text: s}}
}

func binary(kind schema.ToolPartType, mimeType string, data []byte) part {
	b := base64.StdEncoding.EncodeToString(data)
	c := schema.MessagePartCommon{Base64Data: &b, MIMEType: mimeType}
	p := part{ToolOutputPart: schema.ToolOutputPart{Type: kind}, mimeType: mimeType, size: len(data)}
	switch kind {
	case schema.ToolPartTypeImage:
		p.Image = &schema.ToolOutputImage{MessagePartCommon: c}
	case schema.ToolPartTypeAudio:
		p.Audio = &schema.ToolOutputAudio{MessagePartCommon: c}
	default:
		p.File = &schema.ToolOutputFile{MessagePartCommon: c}
	}
	return p
}

// parts maps a tool result's MCP content to eino tool output parts.
func parts(res *ext.ToolResult) []part {
	var out []part
	hasText := false
	for _, c := range res.Content {
		switch c.Type {
		case ext.ContentText:
			hasText = true
			out = append(out, text(c.Text))
		case ext.ContentImage:
			out = append(out, binary(schema.ToolPartTypeImage, c.MIMEType, c.Data))
		case ext.ContentAudio:
			out = append(out, binary(schema.ToolPartTypeAudio, c.MIMEType, c.Data))
		case ext.ContentResource:
			r := c.Resource
			switch {
			case r == nil:
				out = append(out, text("[empty resource]"))
			case r.Blob == nil:
				out = append(out, text(fmt.Sprintf("<resource uri=%q mimeType=%q>\n%s\n</resource>", r.URI, r.MIMEType, r.Text)))
			case strings.HasPrefix(r.MIMEType, "image/"):
				out = append(out, binary(schema.ToolPartTypeImage, r.MIMEType, r.Blob))
			default:
				p := binary(schema.ToolPartTypeFile, r.MIMEType, r.Blob)
				p.Extra = map[string]any{"uri": r.URI}
				out = append(out, p)
			}
		case ext.ContentResourceLink:
			out = append(out, text(agent.LinkText(c)))
		}
	}
	if !hasText && len(res.StructuredContent) > 0 {
		out = append(out, text(string(res.StructuredContent)))
	}
	if res.IsError {
		if len(out) > 0 && out[0].Type == schema.ToolPartTypeText {
			out[0].Text = "Error: " + out[0].Text
		} else {
			out = append([]part{text("Error")}, out...)
		}
	}
	return out
}

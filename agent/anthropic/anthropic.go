package anthropic

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/ext"
	sdk "github.com/anthropics/anthropic-sdk-go/v2"
)

// Tools returns tools as Messages-API tool params. The input schema is passed through:
// properties and required in their fields, everything else ($defs, additionalProperties, …)
// as extra fields, so the JSON sent is the server's schema.
func Tools(tools []agent.ToolDef) []sdk.ToolUnionParam {
	out := make([]sdk.ToolUnionParam, 0, len(tools))
	for _, t := range tools {
		tp := &sdk.ToolParam{Name: t.Name, InputSchema: inputSchema(t.InputSchema)}
		if t.Description != "" {
			tp.Description = sdk.String(t.Description)
		}
		out = append(out, sdk.ToolUnionParam{OfTool: tp})
	}
	return out
}

func inputSchema(raw json.RawMessage) sdk.ToolInputSchemaParam {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		m = nil // not an object (a server's mistake): an object of anything
	}
	var s sdk.ToolInputSchemaParam
	if p, ok := m["properties"]; ok {
		s.Properties = p
	} else {
		// A schema of no arguments: the SDK would omit a zero input_schema, which the API
		// requires; {"type":"object","properties":{}} says the same.
		s.Properties = map[string]any{}
	}
	if r, ok := m["required"].([]any); ok {
		for _, v := range r {
			if name, ok := v.(string); ok {
				s.Required = append(s.Required, name)
			}
		}
	}
	for k, v := range m {
		switch k {
		case "type", "properties", "required":
		default:
			if s.ExtraFields == nil {
				s.ExtraFields = map[string]any{}
			}
			s.ExtraFields[k] = v
		}
	}
	return s
}

// System returns the instructions as system blocks: Static marked cacheable (cache_control
// ephemeral: the tools and this block are the cached prefix), then Dynamic, which changes
// from turn to turn and so is after the breakpoint.
func System(in agent.Instructions) []sdk.TextBlockParam {
	var out []sdk.TextBlockParam
	if in.Static != "" {
		out = append(out, sdk.TextBlockParam{Text: in.Static, CacheControl: sdk.NewCacheControlEphemeralParam()})
	}
	if in.Dynamic != "" {
		out = append(out, sdk.TextBlockParam{Text: in.Dynamic})
	}
	return out
}

// Messages returns the conversation as Messages-API messages. The tool messages answering
// one assistant message become one user message of tool_result blocks, as the API requires;
// consecutive messages of one role are joined, since the API wants the roles to alternate.
func Messages(msgs []agent.Message) []sdk.MessageParam {
	var out []sdk.MessageParam
	var results []sdk.ContentBlockParamUnion
	add := func(m sdk.MessageParam) {
		if m.OfUser != nil && len(m.OfUser.Content) == 0 || m.OfAssistant != nil && len(m.OfAssistant.Content) == 0 {
			return // the API rejects a message without content (an empty prompt, an empty answer)
		}
		// User and assistant alternate: a prompt after a step's tool results (a run stopped at
		// its step limit), or what follows a message left out, joins the message before it,
		// the tool results staying first.
		if n := len(out); n > 0 {
			switch prev := out[n-1]; {
			case prev.OfUser != nil && m.OfUser != nil:
				prev.OfUser.Content = append(prev.OfUser.Content, m.OfUser.Content...)
				return
			case prev.OfAssistant != nil && m.OfAssistant != nil:
				prev.OfAssistant.Content = append(prev.OfAssistant.Content, m.OfAssistant.Content...)
				return
			}
		}
		out = append(out, m)
	}
	flush := func() {
		if len(results) > 0 {
			add(sdk.NewUserMessage(results...))
			results = nil
		}
	}
	for _, m := range msgs {
		if m.Role != agent.RoleTool {
			flush()
		}
		switch m.Role {
		case agent.RoleUser:
			var blocks []sdk.ContentBlockParamUnion
			for _, c := range ToolResultContent(m) {
				switch {
				case c.OfText != nil:
					blocks = append(blocks, sdk.ContentBlockParamUnion{OfText: c.OfText})
				case c.OfImage != nil:
					blocks = append(blocks, sdk.ContentBlockParamUnion{OfImage: c.OfImage})
				case c.OfDocument != nil:
					blocks = append(blocks, sdk.ContentBlockParamUnion{OfDocument: c.OfDocument})
				}
			}
			add(sdk.NewUserMessage(blocks...))
		case agent.RoleAssistant:
			var blocks []sdk.ContentBlockParamUnion
			if t := m.Text(); t != "" {
				blocks = append(blocks, sdk.NewTextBlock(t))
			}
			for _, c := range m.ToolCalls {
				// The API wants an object: arguments that were not one (agent keeps text that
				// is not JSON as a JSON string, and answered the model with an error) go as {}.
				in := json.RawMessage(`{}`)
				if t := bytes.TrimSpace(c.Arguments); len(t) > 0 && t[0] == '{' && json.Valid(t) {
					in = t
				}
				blocks = append(blocks, sdk.NewToolUseBlock(c.ID, in, c.Name))
			}
			add(sdk.NewAssistantMessage(blocks...))
		case agent.RoleTool:
			tr := &sdk.ToolResultBlockParam{ToolUseID: m.ToolCallID, Content: ToolResultContent(m)}
			if m.IsError {
				tr.IsError = sdk.Bool(true)
			}
			results = append(results, sdk.ContentBlockParamUnion{OfToolResult: tr})
		}
	}
	flush()
	return out
}

// imageTypes are the image MIME types the API takes.
var imageTypes = map[string]bool{"image/jpeg": true, "image/png": true, "image/gif": true, "image/webp": true}

// ToolResultContent returns a message's MCP content as tool_result content blocks (see the
// package doc for each kind).
func ToolResultContent(m agent.Message) []sdk.ToolResultBlockParamContentUnion {
	var out []sdk.ToolResultBlockParamContentUnion
	text := func(s string) {
		if s == "" {
			return // the API rejects an empty text block
		}
		out = append(out, sdk.ToolResultBlockParamContentUnion{OfText: &sdk.TextBlockParam{Text: s}})
	}
	image := func(mimeType string, data []byte) {
		out = append(out, sdk.ToolResultBlockParamContentUnion{OfImage: &sdk.ImageBlockParam{Source: sdk.ImageBlockParamSourceUnion{
			OfBase64: &sdk.Base64ImageSourceParam{MediaType: sdk.Base64ImageSourceMediaType(mimeType), Data: base64.StdEncoding.EncodeToString(data)}}}})
	}
	hasText := false
	for _, c := range m.Content {
		switch c.Type {
		case ext.ContentText:
			hasText = true
			text(c.Text)
		case ext.ContentImage:
			if imageTypes[c.MIMEType] {
				image(c.MIMEType, c.Data)
			} else {
				text(fmt.Sprintf("[image %s, %d bytes: not sent, the API takes JPEG, PNG, GIF and WebP only]", c.MIMEType, len(c.Data)))
			}
		case ext.ContentAudio:
			text(fmt.Sprintf("[audio %s, %d bytes: not sent, the API takes no audio]", c.MIMEType, len(c.Data)))
		case ext.ContentResource:
			r := c.Resource
			switch {
			case r == nil:
				text("[empty resource]")
			case r.Blob == nil:
				text(fmt.Sprintf("<resource uri=%q mimeType=%q>\n%s\n</resource>", r.URI, r.MIMEType, r.Text))
			case imageTypes[r.MIMEType]:
				image(r.MIMEType, r.Blob)
			case r.MIMEType == "application/pdf":
				out = append(out, sdk.ToolResultBlockParamContentUnion{OfDocument: &sdk.DocumentBlockParam{Title: sdk.String(r.URI),
					Source: sdk.DocumentBlockParamSourceUnion{OfBase64: &sdk.Base64PDFSourceParam{Data: base64.StdEncoding.EncodeToString(r.Blob)}}}})
			default:
				text(fmt.Sprintf("[resource %s (%s, %d bytes): binary, not sent]", r.URI, r.MIMEType, len(r.Blob)))
			}
		case ext.ContentResourceLink:
			text(agent.LinkText(c))
		}
	}
	if !hasText && len(m.StructuredContent) > 0 {
		text(string(m.StructuredContent))
	}
	return out
}

// Params returns the Messages-API request for req: system blocks, messages and tools.
// maxTokens is the API's required max_tokens.
func Params(model string, maxTokens int64, req *agent.Request) sdk.MessageNewParams {
	p := sdk.MessageNewParams{Model: sdk.Model(model), MaxTokens: maxTokens, System: System(req.Instructions), Messages: Messages(req.Messages)}
	if len(req.Tools) > 0 {
		p.Tools = Tools(req.Tools)
	}
	return p
}

// FromMessage returns the API's answer as an agent.Response: its text blocks joined, its
// tool_use blocks as tool calls.
func FromMessage(msg *sdk.Message) *agent.Response {
	resp := &agent.Response{}
	var texts []string
	for _, b := range msg.Content {
		switch b.Type {
		case "text":
			texts = append(texts, b.Text)
		case "tool_use":
			resp.ToolCalls = append(resp.ToolCalls, agent.ToolCall{ID: b.ID, Name: b.Name, Arguments: b.Input})
		}
	}
	resp.Text = strings.Join(texts, "")
	return resp
}

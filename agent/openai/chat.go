package openai

import (
	"encoding/json"
	"fmt"

	"github.com/agentpool/agentpool/agent"
	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"
)

// schema decodes a tool's input schema for the SDK, which takes it as a map. A schema that is
// not a JSON object (a server's mistake) becomes {"type":"object"}, so one bad tool does not
// make the whole request fail; agent gives a tool without a schema that already.
func schema(raw json.RawMessage) map[string]any {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return map[string]any{"type": "object"}
	}
	return m
}

// ChatTools returns tools as chat-completions function tools, their schemas passed through
// ($defs, enums, nested objects as the server wrote them; strict mode off, since MCP schemas
// are not written for it).
func ChatTools(tools []agent.ToolDef) []sdk.ChatCompletionToolUnionParam {
	out := make([]sdk.ChatCompletionToolUnionParam, 0, len(tools))
	for _, t := range tools {
		fn := shared.FunctionDefinitionParam{Name: t.Name, Parameters: schema(t.InputSchema)}
		if t.Description != "" {
			fn.Description = param.NewOpt(t.Description)
		}
		out = append(out, sdk.ChatCompletionFunctionTool(fn))
	}
	return out
}

// ChatMessages returns the request's instructions and messages as chat-completions
// messages: one system message (Static, then Dynamic), then the conversation. A tool message
// of that API holds text only, so a tool result's images and audio are noted in its text and
// attached to one user message that follows the step's tool messages.
func ChatMessages(req *agent.Request) []sdk.ChatCompletionMessageParamUnion {
	var out []sdk.ChatCompletionMessageParamUnion
	if s := system(req.Instructions); s != "" {
		out = append(out, sdk.SystemMessage(s))
	}
	var attached []sdk.ChatCompletionContentPartUnionParam
	flush := func() {
		if len(attached) > 0 {
			out = append(out, sdk.UserMessage(attached))
			attached = nil
		}
	}
	for _, m := range req.Messages {
		if m.Role != agent.RoleTool {
			flush()
		}
		switch m.Role {
		case agent.RoleUser:
			if ps := parts(m, true, false); binary(ps) {
				out = append(out, sdk.UserMessage(chatParts(ps)))
			} else {
				out = append(out, sdk.UserMessage(joinText(ps))) // plain text: what every server takes
			}
		case agent.RoleAssistant:
			a := sdk.ChatCompletionAssistantMessageParam{}
			// Content is required unless there are tool calls: an empty answer says "".
			if t := m.Text(); t != "" || len(m.ToolCalls) == 0 {
				a.Content.OfString = param.NewOpt(t)
			}
			for _, c := range m.ToolCalls {
				a.ToolCalls = append(a.ToolCalls, sdk.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{ID: c.ID,
						Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: arguments(c)}}})
			}
			out = append(out, sdk.ChatCompletionMessageParamUnion{OfAssistant: &a})
		case agent.RoleTool:
			ps := parts(m, true, false)
			var text []part
			for _, p := range ps {
				if p.kind == "" {
					text = append(text, p)
					continue
				}
				text = append(text, part{text: fmt.Sprintf("[%s %s, %d bytes: attached to the user message after the tool results]", p.kind, p.mimeType, len(p.data))})
				if len(attached) == 0 {
					attached = append(attached, sdk.TextContentPart("Attachments of the tool results above:"))
				}
				attached = append(attached, sdk.TextContentPart(fmt.Sprintf("From tool call %s (%s):", m.ToolCallID, m.ToolName)))
				attached = append(attached, chatParts([]part{p})...)
			}
			out = append(out, sdk.ToolMessage(joinText(text), m.ToolCallID))
		}
	}
	flush()
	return out
}

// chatParts returns parts as chat-completions user content parts.
func chatParts(ps []part) []sdk.ChatCompletionContentPartUnionParam {
	out := make([]sdk.ChatCompletionContentPartUnionParam, 0, len(ps))
	for _, p := range ps {
		switch p.kind {
		case "image":
			out = append(out, sdk.ImageContentPart(sdk.ChatCompletionContentPartImageImageURLParam{URL: p.dataURL()}))
		case "audio":
			out = append(out, sdk.InputAudioContentPart(sdk.ChatCompletionContentPartInputAudioInputAudioParam{
				Data: p.base64(), Format: audioFormat(p.mimeType)}))
		default:
			out = append(out, sdk.TextContentPart(p.text))
		}
	}
	return out
}

// ChatParams returns the chat-completions request for req: model, messages and tools.
func ChatParams(model string, req *agent.Request) sdk.ChatCompletionNewParams {
	p := sdk.ChatCompletionNewParams{Model: shared.ChatModel(model), Messages: ChatMessages(req)}
	if len(req.Tools) > 0 {
		p.Tools = ChatTools(req.Tools)
	}
	return p
}

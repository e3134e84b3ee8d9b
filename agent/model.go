package agent

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/agentpool/agentpool/ext"
)

// Role says who wrote a message.
type Role string

// The roles of a conversation. The system prompt is not a message: it is Request.Instructions.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	// RoleTool is a tool call's result, answering the assistant message that asked for it.
	RoleTool Role = "tool"
)

// Message is one message of a conversation, in a form every LLM API maps to: role-tagged,
// with MCP content kinds (text, image, audio, embedded resource, resource link) so a tool's
// result reaches an adapter without loss.
type Message struct {
	Role    Role          `json:"role"`
	Content []ext.Content `json:"content,omitempty"`
	// ToolCalls are the calls an assistant message asks for.
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
	// ToolCallID and ToolName say, on a tool message, which call it answers.
	ToolCallID string `json:"toolCallId,omitempty"`
	ToolName   string `json:"toolName,omitempty"`
	// IsError marks a tool message that reports a failure: the tool said it failed, or the
	// call could not be made (the RFC's ModelRetry: the model sees it and may try again).
	IsError bool `json:"isError,omitempty"`
	// StructuredContent is a tool result's structured content, when the tool gave one.
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
}

// UserMessage returns a user message holding text.
func UserMessage(text string) Message {
	return Message{Role: RoleUser, Content: []ext.Content{{Type: ext.ContentText, Text: text}}}
}

// Text returns the message's content flattened to text (ext.Content.Flatten), parts joined by
// newlines.
func (m Message) Text() string {
	var parts []string
	for _, c := range m.Content {
		if s := c.Flatten(); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n")
}

// ToolCall is one tool call a model asks for.
type ToolCall struct {
	// ID pairs the call with its result. A model that gives none, or one already used in the
	// conversation, gets "call_<step>_<n>" (with a "_<k>" suffix if that is taken too).
	ID   string `json:"id"`
	Name string `json:"name"`
	// Arguments is a JSON object; empty means {}. A model's arguments that are not JSON are
	// kept as it sent them (the run answers the call with what is wrong); such a call is
	// marshalled with its arguments as a JSON string.
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// MarshalJSON is the call as JSON; arguments that are not JSON are written as a JSON string.
func (c ToolCall) MarshalJSON() ([]byte, error) {
	type plain ToolCall
	p := plain(c)
	if len(p.Arguments) > 0 && !json.Valid(p.Arguments) {
		b, err := json.Marshal(string(p.Arguments))
		if err != nil {
			return nil, err
		}
		p.Arguments = b
	}
	return json.Marshal(p)
}

// ToolDef is one tool offered to the model.
type ToolDef struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// InputSchema is a JSON Schema of an object, passed through from the server unchanged
	// ($defs, enums and all); a tool that declared none gets {"type":"object"}.
	InputSchema json.RawMessage      `json:"inputSchema"`
	Annotations *ext.ToolAnnotations `json:"annotations,omitempty"`
	// Origin is where the tool comes from (an upstream server is remote, mcp://<server>);
	// the agent's own tools are local with Location "agent".
	Origin ext.Origin `json:"origin"`
}

// Instructions are the system prompt of a request, in two parts so an adapter can mark the
// first cacheable (Anthropic's cache_control, OpenAI's automatic prefix caching): Static is
// byte-identical from request to request while nothing visible changes; Dynamic is the
// turn's (the skills selected for its prompt) and goes after it.
type Instructions struct {
	Static  string `json:"static,omitempty"`
	Dynamic string `json:"dynamic,omitempty"`
}

// Request is one model step's input. The model must not modify it: its slices are the
// agent's.
type Request struct {
	Instructions Instructions `json:"instructions"`
	Messages     []Message    `json:"messages"`
	Tools        []ToolDef    `json:"tools"`
}

// Response is a model step's output: text, tool calls, or both. No tool calls ends the run.
type Response struct {
	Text      string     `json:"text,omitempty"`
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
}

// Model is a language model behind any API: one request in, text and tool calls out. An
// error ends the run (StopError); the adapter decides what it retries (a 429, say) before
// giving up.
type Model interface {
	Generate(ctx context.Context, req *Request) (*Response, error)
}

// StreamingModel is a Model that can also stream its text. The agent streams when it has an
// Observer, which receives each piece as an EventDelta; the Response returned at the end is
// the whole step, as Generate would have returned it.
type StreamingModel interface {
	Model
	Stream(ctx context.Context, req *Request, delta func(text string)) (*Response, error)
}

// ReasoningStreamer is a StreamingModel that can also stream the reasoning a model produces
// before or beside its answer (the reasoning_content of OpenAI-compatible servers, Anthropic's
// thinking). The agent prefers it to Stream when it has an Observer: text receives the answer's
// pieces (EventDelta), thought the reasoning's (EventThought). The reasoning is not in the
// Response: it is shown, not kept in the conversation.
type ReasoningStreamer interface {
	StreamingModel
	StreamReasoning(ctx context.Context, req *Request, text, thought func(string)) (*Response, error)
}

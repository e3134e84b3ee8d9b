// Package anthropic adapts package agent to github.com/anthropics/anthropic-sdk-go/v2: a Model
// (agent.Model, agent.StreamingModel, and StreamReasoning for thinking) for the Messages API,
// and an agent.Request as Messages-API parameters (Params; Tools, System, Messages,
// ToolResultContent) with the API's answer as an agent.Response (FromMessage) for callers that
// drive the SDK themselves.
//
//	m, err := anthropic.New(anthropic.Options{Model: "claude-sonnet-4-5"})
//	if err != nil {
//		return err
//	}
//	a, err := agent.New(agent.Options{Model: m, Registry: reg, Scope: scope})
//
// The Model:
//
//   - Every request streams (Generate too): text deltas go to Stream's delta as they come,
//     tool_use blocks become tool calls in block order, their input_json_delta pieces joined
//     (no pieces: {}; pieces that are not JSON, a tool_use cut at max_tokens: a JSON string).
//     Thinking deltas go to StreamReasoning's thought; no request asks for thinking.
//   - It retries a 408, 409, 429, 5xx or 529, an overloaded or api error event, and a lost
//     connection up to Options.MaxRetries times (default 2), waiting retry-after-ms, else
//     Retry-After, else 0.5 s doubled per attempt; a Retry-After beyond Options.MaxRetryWait
//     (default 30 s) is returned at once; nothing is retried once text or thinking reached the
//     caller. Each retry is reported with agent.RetryingOf.
//   - An error is one line: the model and endpoint (without credentials), the status, the
//     error's type, the endpoint's message, what to check for a 401 or 404, and the attempts
//     made; errors.As finds the SDK's *Error. A 2xx answer that is no Messages event stream, or
//     one cut before message_stop, is ErrMalformedResponse. A cancelled context ends the
//     request, or the wait before a retry, with ctx's error.
//   - Options.APIKey empty is the SDK's credentials ($ANTHROPIC_API_KEY, …); BaseURL empty is
//     $ANTHROPIC_BASE_URL, else Anthropic's; MaxTokens defaults to DefaultMaxTokens.
//
// The translation:
//
//   - Tools: the MCP input schema is passed through as the server wrote it. Names are the
//     view's, which match ^[a-zA-Z0-9_-]{1,64}$ (view.ValidToolName); a tool_use under one
//     reaches its tool through View.CallTool.
//   - System: the static instructions are the first block, with cache_control ephemeral; the
//     dynamic part is a second block after the breakpoint.
//   - Tool results that answer one assistant message are one user message of tool_result
//     blocks, each with is_error when the result is an error.
//   - Empty texts and messages left without content are not sent.
//
// Tool results, per MCP content kind; what is lossy is said in a text block:
//
//   - text: a text block.
//   - image: an image block when JPEG, PNG, GIF or WebP; another type is a note.
//   - audio: a note.
//   - embedded resource: text wrapped in <resource uri="…" mimeType="…">; an image blob an image
//     block; a PDF blob a document block titled with its URI; any other blob a note of its URI,
//     MIME type and size.
//   - resource link: a text block with its URI, name, title, description, MIME type and size.
//   - structured content: its JSON as a text block, only when the result has no text.
//   - annotations, _meta and icons of content are dropped.
//
// Rationale: docs/design/agent.md.
package anthropic

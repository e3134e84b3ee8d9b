// Package anthropic adapts package agent to github.com/anthropics/anthropic-sdk-go/v2
// (issue 12, item 4): an agent.Request as Messages-API parameters (Params; Tools, System,
// Messages, ToolResultContent), and the API's answer back as an agent.Response
// (FromMessage). It imports the SDK, agent, view and ext; agent knows nothing of it. It has
// no Model of its own: a caller with the SDK's client calls Messages.New(ctx, Params(…)) and
// FromMessage on the answer; without agent.Run, a view's tools come from agent.ToolDefs and a call's
// result (View.CallTool) from agent.ToolMessage.
//
// Decisions taken where the issue is silent:
//
//   - Tools: the MCP input schema is passed through — properties and required in the SDK's
//     fields, everything else ($defs, additionalProperties, …) as extra fields — so the JSON
//     sent is the server's schema. A schema without properties (a tool of no arguments) gets
//     "properties":{}: the SDK leaves an empty input_schema out and the API requires it.
//   - System: the static instructions are the first system block, with cache_control
//     ephemeral, so the tools and that block are the cached prompt prefix; the dynamic part,
//     which changes from turn to turn, is a second block after the breakpoint.
//   - Tool results: the tool messages that answer one assistant message are one user message
//     of tool_result blocks (the API wants them together), each with is_error when the result
//     is an error. Content, per MCP kind, and what is lossy (said in a text block, so the
//     model knows something was there):
//   - text: a text block.
//   - image: an image block (base64) when JPEG, PNG, GIF or WebP; another type is a note.
//   - audio: a note (the API takes no audio).
//   - embedded resource: text is a text block wrapped in <resource uri="…" mimeType="…">;
//     an image blob an image block; a PDF blob a document block titled with its URI; any
//     other blob a note of its URI, MIME type and size (the model can read_resource it).
//   - resource link: a text block with its URI (what read_resource takes), name, title,
//     description, MIME type and size.
//   - structured content: its JSON as a text block, only when the result has no text (MCP
//     asks tools to give it as text too).
//     Annotations, _meta and icons of content are dropped.
//   - What the API rejects is not sent: an empty text (an empty prompt, a tool's empty text)
//     is no block, and a message left without content (an empty model answer) no message.
package anthropic

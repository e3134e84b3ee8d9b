// Package anthropic adapts package agent to github.com/anthropics/anthropic-sdk-go/v2: an
// agent.Request as Messages-API parameters (Params; Tools, System, Messages,
// ToolResultContent) and the API's answer as an agent.Response (FromMessage). It has no Model of
// its own: a caller with the SDK's client calls Messages.New and FromMessage.
//
//	msg, err := client.Messages.New(ctx, anthropic.Params("claude-sonnet-4-5", 4096, req))
//	if err != nil {
//		return err
//	}
//	resp := anthropic.FromMessage(msg)
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

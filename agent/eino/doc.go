// Package eino adapts a view to github.com/cloudwego/eino (issue 12, item 4): one
// tool.InvokableTool per tool of the view (Tools), or one tool.EnhancedInvokableTool, eino's
// multimodal tool interface (EnhancedTools), to hand to an eino ToolsNode, ChatModel agent or
// graph. It imports eino (and its jsonschema, eino-contrib/jsonschema, in which eino takes a
// schema), view and ext; agent knows nothing of it.
//
// Decisions taken where the issue is silent:
//
//   - A tool calls through the view it was made from, so through the capabilities visible
//     when that view was compiled; after a change, make the tools again from the new view
//     (view.Cache.Get is cheap when nothing changed).
//   - Info is the tool's name, description and input schema, decoded into eino's
//     jsonschema.Schema unchanged ($defs, $ref, enums, nested objects; a tool without
//     arguments keeps {"type":"object"}). A schema it cannot decode makes Tools fail, naming
//     the tool.
//   - A result with isError is a result, its first text prefixed "Error: ", for the model to
//     read (the RFC's ModelRetry); a call that could not be made is an error naming the
//     tool, which eino's ToolsNode returns unless the graph handles it.
//   - Results, per MCP content kind. InvokableTool returns text: text as it is, an embedded
//     text resource wrapped in <resource uri="…" mimeType="…">, a resource link as a line
//     with its URI, name, title, description, MIME type and size, structured content as JSON
//     when there is no text; images, audio and blobs are lossy there: a note of their kind,
//     MIME type and size only. EnhancedInvokableTool keeps them: images (and image blobs) as
//     image parts, audio as audio parts, other blobs as file parts with the resource URI in
//     Extra["uri"], all base64 with their MIME type. Annotations, _meta and icons are dropped.
package eino

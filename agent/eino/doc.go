// Package eino adapts a view to github.com/cloudwego/eino: one tool.InvokableTool per tool of
// the view (Tools), or one tool.EnhancedInvokableTool, eino's multimodal tool interface
// (EnhancedTools), to hand to an eino ToolsNode, ChatModel agent or graph.
//
//	tools, err := eino.Tools(v) // v from view.Compile or a view.Cache
//	if err != nil {
//		return err // a tool's input schema that eino cannot take, naming the tool
//	}
//
// The tools:
//
//   - A tool calls through the view it was made from; after a change, make the tools again
//     from the new view.
//   - Info is the tool's name, description and input schema, unchanged.
//   - A result with isError is a result, its first text prefixed "Error: "; a call that could
//     not be made is an error naming the tool.
//   - InvokableTool returns text: text as it is, an embedded text resource wrapped in
//     <resource uri="…" mimeType="…">, a resource link as a line with its URI, name, title,
//     description, MIME type and size, structured content as JSON when there is no text;
//     images, audio and blobs become a note of their kind, MIME type and size.
//     EnhancedInvokableTool keeps them: images as image parts, audio as audio parts, other
//     blobs as file parts with the resource URI in Extra["uri"]. Annotations, _meta and icons
//     are dropped.
package eino

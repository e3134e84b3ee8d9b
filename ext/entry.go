package ext

import "encoding/json"

// SkillEntry describes one skill. URI is the skill's SKILL.md, e.g. "skill://pdf/SKILL.md".
type SkillEntry struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Description string `json:"description"`
	MIMEType    string `json:"mimeType,omitempty"`
	// Origin says where the skill came from: a folder for local skills, "mcp://<server>" for
	// skills served by an MCP server. Content from a remote origin is untrusted.
	Origin string `json:"origin,omitempty"`
}

// ResourceEntry describes one resource, as MCP resources/list does.
type ResourceEntry struct {
	URI         string          `json:"uri"`
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	MIMEType    string          `json:"mimeType,omitempty"`
	Size        int64           `json:"size,omitempty"`
	Annotations json.RawMessage `json:"annotations,omitempty"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
}

// ResourceTemplateEntry describes a parameterised resource, as MCP resources/templates/list does.
type ResourceTemplateEntry struct {
	URITemplate string          `json:"uriTemplate"`
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	MIMEType    string          `json:"mimeType,omitempty"`
	Annotations json.RawMessage `json:"annotations,omitempty"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
}

// ResourceContents is one part of a read resource: Text for textual content, Blob for binary.
type ResourceContents struct {
	URI      string          `json:"uri"`
	MIMEType string          `json:"mimeType,omitempty"`
	Text     string          `json:"text,omitempty"`
	Blob     []byte          `json:"blob,omitempty"`
	Meta     json.RawMessage `json:"_meta,omitempty"`
}

// ToolAnnotations are the MCP tool hints. Nil pointers mean "not said".
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    bool   `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  bool   `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// ToolEntry describes one tool. Schemas are kept as raw JSON so they pass through unchanged.
type ToolEntry struct {
	Name         string           `json:"name"`
	Title        string           `json:"title,omitempty"`
	Description  string           `json:"description,omitempty"`
	InputSchema  json.RawMessage  `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *ToolAnnotations `json:"annotations,omitempty"`
	Meta         json.RawMessage  `json:"_meta,omitempty"`
}

// Content kinds, as MCP names them on the wire.
const (
	ContentText         = "text"
	ContentImage        = "image"
	ContentAudio        = "audio"
	ContentResourceLink = "resource_link"
	ContentResource     = "resource"
)

// Content is one item of a tool result. It mirrors the MCP wire form so every content kind
// passes through losslessly: Type selects which fields are meaningful.
type Content struct {
	Type string `json:"type"`
	// Text is set for "text".
	Text string `json:"text,omitempty"`
	// Data and MIMEType are set for "image" and "audio" (Data is base64 on the wire).
	Data     []byte `json:"data,omitempty"`
	MIMEType string `json:"mimeType,omitempty"`
	// URI, Name, Title, Description and Size are set for "resource_link".
	URI         string `json:"uri,omitempty"`
	Name        string `json:"name,omitempty"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Size        *int64 `json:"size,omitempty"`
	// Resource is set for "resource" (an embedded resource).
	Resource    *ResourceContents `json:"resource,omitempty"`
	Icons       json.RawMessage   `json:"icons,omitempty"`
	Annotations json.RawMessage   `json:"annotations,omitempty"`
	Meta        json.RawMessage   `json:"_meta,omitempty"`
}

// ToolResult is the result of a tool call. IsError reports a tool-level failure (the tool ran
// and said it failed), as distinct from a returned error (the call could not be made).
type ToolResult struct {
	Content           []Content       `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
	Meta              json.RawMessage `json:"_meta,omitempty"`
}

// TextResult returns a result holding one text item.
func TextResult(text string) *ToolResult {
	return &ToolResult{Content: []Content{{Type: ContentText, Text: text}}}
}

// CommandArgument describes one argument of a command (an MCP prompt argument).
type CommandArgument struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// CommandEntry describes one slash command. Name is what the user types after "/";
// QualifiedName reaches the same command even when another source's command shadows Name
// (for example "skill:pdf", "file:review" or "everything:simple-prompt").
type CommandEntry struct {
	Name          string            `json:"name"`
	QualifiedName string            `json:"qualifiedName,omitempty"`
	Description   string            `json:"description,omitempty"`
	ArgumentHint  string            `json:"argumentHint,omitempty"`
	Arguments     []CommandArgument `json:"arguments,omitempty"`
	// Source names where the command came from: "skill", "file" or "mcp".
	Source string `json:"source,omitempty"`
	// Path is the file the command was read from, for local sources.
	Path string `json:"path,omitempty"`
}

// ChangeKind says what changed.
type ChangeKind string

// The five change kinds of RFC-0051 "Hot Reload".
const (
	ToolsChanged     ChangeKind = "tools_changed"
	ResourcesChanged ChangeKind = "resources_changed"
	PromptsChanged   ChangeKind = "prompts_changed"
	SkillsChanged    ChangeKind = "skills_changed"
	CommandsChanged  ChangeKind = "commands_changed"
)

// ChangeEvent says that something a capability provides has changed. SourceURI narrows it to one
// resource or skill when the producer knows which (a resource update, one SKILL.md edited).
type ChangeEvent struct {
	Capability string     `json:"capability"`
	Kind       ChangeKind `json:"kind"`
	SourceURI  string     `json:"sourceUri,omitempty"`
}

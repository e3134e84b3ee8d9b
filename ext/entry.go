package ext

import (
	"encoding/json"
	"fmt"
	"strings"
)

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
	Icons       []Icon          `json:"icons,omitempty"`
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
	Icons       []Icon          `json:"icons,omitempty"`
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
	Icons        []Icon           `json:"icons,omitempty"`
	Meta         json.RawMessage  `json:"_meta,omitempty"`
}

// Icon is an MCP icon: an image a client may show beside a tool, resource, prompt or content.
type Icon struct {
	// Src is an HTTP(S) URL or a data: URI.
	Src      string   `json:"src"`
	MIMEType string   `json:"mimeType,omitempty"`
	Sizes    []string `json:"sizes,omitempty"`
	// Theme is "light" or "dark" when the icon is made for one background.
	Theme string `json:"theme,omitempty"`
}

// ToolSep joins a namespace and a tool's own name into the name a toolset offers: an upstream
// server's tools are "<server>__<tool>", a skill's own servers' tools "<skill>__<tool>".
const ToolSep = "__"

// ToolName is the one naming rule for namespaced tools: namespace + "__" + tool, or tool alone
// when namespace is empty.
func ToolName(namespace, tool string) string {
	if namespace == "" {
		return tool
	}
	return namespace + ToolSep + tool
}

// ToolCall is one tool call request.
type ToolCall struct {
	// Name is the tool's name as the capability's Tools lists it.
	Name string `json:"name"`
	// Arguments is the JSON object of arguments; nil means {}.
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Meta is the caller's _meta, passed on to an upstream server unchanged except for
	// progressToken, which the capability sets itself when Progress is non-nil.
	Meta json.RawMessage `json:"_meta,omitempty"`
	// Progress, when non-nil, receives the progress notifications of this call, in order. It
	// is called from the capability's goroutines and must not block.
	Progress func(Progress) `json:"-"`
}

// Progress is one progress notification of a call.
type Progress struct {
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"`
	Message  string  `json:"message,omitempty"`
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
	Icons       []Icon            `json:"icons,omitempty"`
	Annotations json.RawMessage   `json:"annotations,omitempty"`
	Meta        json.RawMessage   `json:"_meta,omitempty"`
}

// MarshalJSON writes the MCP wire form, in which a text item always has "text", even empty.
func (c Content) MarshalJSON() ([]byte, error) {
	type plain Content
	b, err := json.Marshal(plain(c))
	if err != nil || c.Type != ContentText || c.Text != "" {
		return b, err
	}
	return append([]byte(`{"text":"",`), b[1:]...), nil
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
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// CommandEntry describes one slash command. Name is what the user types after "/";
// QualifiedName reaches the same command even when another source's command shadows Name
// (for example "skill:pdf", "file:review" or "everything:simple-prompt").
type CommandEntry struct {
	Name          string            `json:"name"`
	QualifiedName string            `json:"qualified_name,omitempty"`
	Title         string            `json:"title,omitempty"`
	Description   string            `json:"description,omitempty"`
	ArgumentHint  string            `json:"argument_hint,omitempty"`
	Arguments     []CommandArgument `json:"arguments,omitempty"`
	// Source names where the command came from: "skill", "file" or "mcp".
	Source string `json:"source,omitempty"`
	// Path is the file the command was read from, for local sources.
	Path  string          `json:"path,omitempty"`
	Icons []Icon          `json:"icons,omitempty"`
	Meta  json.RawMessage `json:"_meta,omitempty"`
}

// CommandRequest asks for one command expanded. Args are positional (a slash command line split
// shell-style); Named are the arguments by name (an MCP prompts/get). A source that takes named
// arguments binds Args to its arguments in order when Named is nil; a source that takes a
// command line (skills, command files) joins Named["arguments"] as its line when Args is nil.
type CommandRequest struct {
	Name  string            `json:"name"`
	Args  []string          `json:"args,omitempty"`
	Named map[string]string `json:"named,omitempty"`
}

// Message roles.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// PromptMessage is one role-tagged message of an expanded command, with typed content (text,
// image, audio, embedded resource, resource link), as MCP prompts/get returns it.
type PromptMessage struct {
	Role    string  `json:"role"`
	Content Content `json:"content"`
}

// PromptResult is an expanded command.
type PromptResult struct {
	Description string          `json:"description,omitempty"`
	Messages    []PromptMessage `json:"messages"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
}

// UserPrompt returns a result holding one user text message.
func UserPrompt(text string) *PromptResult {
	return &PromptResult{Messages: []PromptMessage{{Role: RoleUser, Content: Content{Type: ContentText, Text: text}}}}
}

// Text flattens the messages for a terminal or a model that takes one string: text as is,
// embedded text resources by their text, resource links by their URI, binary content as a
// bracketed placeholder; messages separated by blank lines. A nil result is "".
func (p *PromptResult) Text() string {
	if p == nil {
		return ""
	}
	var parts []string
	for _, m := range p.Messages {
		if s := m.Content.Flatten(); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n\n")
}

// Flatten returns c as text: see PromptResult.Text.
func (c Content) Flatten() string {
	switch c.Type {
	case ContentText:
		return c.Text
	case ContentResource:
		if c.Resource == nil {
			return ""
		}
		if c.Resource.Text != "" {
			return c.Resource.Text
		}
		return fmt.Sprintf("[%s resource %s]", c.Resource.MIMEType, c.Resource.URI)
	case ContentResourceLink:
		return c.URI
	case ContentImage, ContentAudio:
		return fmt.Sprintf("[%s %s]", c.MIMEType, c.Type)
	}
	return ""
}

// CompleteRequest asks for completions of one argument of a prompt or resource template.
type CompleteRequest struct {
	// Ref names what is completed: Type "ref/prompt" with Name, or "ref/resource" with URI
	// (a template).
	Ref      CompleteRef       `json:"ref"`
	Argument CompleteArgument  `json:"argument"`
	Context  map[string]string `json:"context,omitempty"`
}

// CompleteRef is the reference of a CompleteRequest.
type CompleteRef struct {
	Type string `json:"type"`
	Name string `json:"name,omitempty"`
	URI  string `json:"uri,omitempty"`
}

// CompleteArgument is the argument being completed and what has been typed so far.
type CompleteArgument struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// CompleteResult holds completion values, at most 100 as MCP says.
type CompleteResult struct {
	Values  []string `json:"values"`
	Total   int      `json:"total,omitempty"`
	HasMore bool     `json:"hasMore,omitempty"`
}

// HealthState is a capability's connection state.
type HealthState string

// The health states.
const (
	// HealthIdle: not connected yet, or waiting to reconnect on next use.
	HealthIdle HealthState = "idle"
	// HealthOK: connected.
	HealthOK HealthState = "ok"
	// HealthDegraded: connecting failed; the capability contributes nothing until it recovers.
	HealthDegraded HealthState = "degraded"
	// HealthClosed: Close was called.
	HealthClosed HealthState = "closed"
)

// Health is a snapshot of a capability's state.
type Health struct {
	State HealthState `json:"state"`
	// Err is the last error, when there is one.
	Err string `json:"error,omitempty"`
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
// resource or skill when the producer knows which (a resource update, one SKILL.md edited). A
// skill:// SourceURI ending in "/" is a prefix: it stands for every resource whose URI (with "/"
// appended) starts with it ("skill://" for every skill).
type ChangeEvent struct {
	Capability string     `json:"capability"`
	Kind       ChangeKind `json:"kind"`
	SourceURI  string     `json:"source_uri,omitempty"`
}

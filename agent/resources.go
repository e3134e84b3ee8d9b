package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/view"
)

// The names of the agent's own tools. They are the agent's, not capabilities: never
// registered, never in a view or a registry query; a view tool of the same name is not
// offered (Result.Problems says so).
const (
	ReadResourceTool  = "read_resource"
	ListResourcesTool = "list_resources"
	DelegateTool      = "delegate"
)

// agentOrigin is the origin of the agent's own tools.
var agentOrigin = ext.Origin{Kind: ext.OriginLocal, Location: "agent"}

// ownTool is one of the agent's own tools: its definition and what runs it, against the view
// of the step that called it.
type ownTool struct {
	def ToolDef
	run func(ctx context.Context, v *view.View, args json.RawMessage) (*ext.ToolResult, error)
}

func (a *Agent) ownTools() []ownTool {
	tools := []ownTool{
		{def: ToolDef{Name: ReadResourceTool, Origin: agentOrigin,
			Description: "Read a resource by URI: a skill's files (skill://<skill>/<file>, e.g. skill://pdf/SKILL.md), " +
				"an MCP server's resources (mcp://<server>/<uri>, or the server's own URI). Long text comes in parts: " +
				"the end of each part says the offset to read from next.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"uri":{"type":"string","description":"the resource URI"},` +
				`"offset":{"type":"integer","minimum":0,"description":"byte offset into a text resource to start from (default 0)"}},"required":["uri"]}`),
			Annotations: &ext.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}},
			run: a.readResource},
		{def: ToolDef{Name: ListResourcesTool, Origin: agentOrigin,
			Description: "List the resources you can read with read_resource (skills' SKILL.md files, servers' resources and URI templates), a page at a time.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"offset":{"type":"integer","minimum":0,"description":"index of the first entry (default 0)"}}}`),
			Annotations: &ext.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}},
			run: a.listResources},
	}
	if d, ok := a.delegateTool(); ok {
		tools = append(tools, d)
	}
	return tools
}

type readArgs struct {
	URI    string `json:"uri"`
	Offset int    `json:"offset"`
}

// readResource reads through the registry's routing at the step's scope (view.ReadResource).
// Text longer than ResourceTextLimit from offset is cut at a character boundary, and a
// trailer gives the full length and the offset to go on from; binary parts come back as
// binary content with their MIME type (image and audio as such, others as an embedded
// resource), or, over ResourceBlobLimit, as a note of their size.
func (a *Agent) readResource(ctx context.Context, v *view.View, raw json.RawMessage) (*ext.ToolResult, error) {
	var in readArgs
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, fmt.Errorf("arguments: %w", err)
	}
	if in.URI == "" {
		return nil, fmt.Errorf("uri is required")
	}
	if in.Offset < 0 {
		return nil, fmt.Errorf("offset %d is negative", in.Offset)
	}
	parts, err := v.ReadResource(ctx, in.URI)
	if err != nil {
		return nil, err
	}
	res := &ext.ToolResult{Content: []ext.Content{}}
	for _, p := range parts {
		if len(p.Blob) > 0 || (p.Text == "" && p.MIMEType != "" && !textual(p.MIMEType)) {
			res.Content = append(res.Content, a.binary(p))
			continue
		}
		res.Content = append(res.Content, ext.Content{Type: ext.ContentText, Text: a.textPart(p, in.Offset)})
	}
	return res, nil
}

func textual(mime string) bool {
	return strings.HasPrefix(mime, "text/") || strings.Contains(mime, "json") || strings.Contains(mime, "xml") ||
		strings.Contains(mime, "yaml") || strings.Contains(mime, "markdown")
}

func (a *Agent) binary(p ext.ResourceContents) ext.Content {
	mime := p.MIMEType
	if mime == "" {
		mime = "application/octet-stream"
	}
	if len(p.Blob) > a.o.ResourceBlobLimit {
		return ext.Content{Type: ext.ContentText, Text: fmt.Sprintf("[%s: %s, %d bytes: over the %d-byte limit for binary content, not returned]",
			p.URI, mime, len(p.Blob), a.o.ResourceBlobLimit)}
	}
	switch {
	case strings.HasPrefix(mime, "image/"):
		return ext.Content{Type: ext.ContentImage, Data: p.Blob, MIMEType: mime}
	case strings.HasPrefix(mime, "audio/"):
		return ext.Content{Type: ext.ContentAudio, Data: p.Blob, MIMEType: mime}
	}
	return ext.Content{Type: ext.ContentResource, Resource: &ext.ResourceContents{URI: p.URI, MIMEType: mime, Blob: p.Blob}}
}

// textPart returns the part of p's text from offset, at most ResourceTextLimit bytes, with a
// trailer when that is not the whole text.
func (a *Agent) textPart(p ext.ResourceContents, offset int) string {
	t := p.Text
	total := len(t)
	if offset > total {
		return fmt.Sprintf("[%s: offset %d is past the end: the text is %d bytes]", p.URI, offset, total)
	}
	// Never start or end inside a character; text that is not UTF-8 has none to be inside
	// of, and is cut where it is.
	if s, n, ok := inRune(t, offset); ok {
		offset = s + n
	}
	end := total
	if end-offset > a.o.ResourceTextLimit {
		end = offset + a.o.ResourceTextLimit
		if s, n, ok := inRune(t, end); ok {
			if s > offset {
				end = s
			} else { // a limit smaller than the character: show that character
				end = s + n
			}
		}
	}
	if offset == 0 && end == total {
		return t
	}
	trailer := fmt.Sprintf("\n\n[%s: bytes %d-%d of %d shown", p.URI, offset, end, total)
	if end < total {
		trailer += fmt.Sprintf("; call read_resource with offset=%d for the rest", end)
	}
	return t[offset:end] + trailer + "]"
}

// inRune reports whether byte i of t is inside a valid UTF-8 character (not its first byte),
// and where that character starts and how long it is.
func inRune(t string, i int) (start, size int, ok bool) {
	for s := i - 1; s >= 0 && s > i-utf8.UTFMax; s-- {
		if utf8.RuneStart(t[s]) {
			r, n := utf8.DecodeRuneInString(t[s:])
			if (r != utf8.RuneError || n > 1) && s+n > i {
				return s, n, true
			}
			return 0, 0, false
		}
	}
	return 0, 0, false
}

type listArgs struct {
	Offset int `json:"offset"`
}

// listResources pages through the view's resources, then its templates.
func (a *Agent) listResources(_ context.Context, v *view.View, raw json.RawMessage) (*ext.ToolResult, error) {
	var in listArgs
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, fmt.Errorf("arguments: %w", err)
	}
	if in.Offset < 0 {
		return nil, fmt.Errorf("offset %d is negative", in.Offset)
	}
	total := len(v.Resources) + len(v.Templates)
	if total == 0 {
		return ext.TextResult("no resources"), nil
	}
	if in.Offset >= total {
		return ext.TextResult(fmt.Sprintf("[offset %d is past the end: there are %d entries]", in.Offset, total)), nil
	}
	end := min(total, in.Offset+a.o.ListPageSize)
	var b strings.Builder
	for i := in.Offset; i < end; i++ {
		if i < len(v.Resources) {
			r := v.Resources[i]
			fmt.Fprintf(&b, "%s", r.URI)
			if r.Name != "" {
				fmt.Fprintf(&b, " (%s)", r.Name)
			}
			if r.MIMEType != "" {
				fmt.Fprintf(&b, " [%s]", r.MIMEType)
			}
			if r.Description != "" {
				fmt.Fprintf(&b, ": %s", oneLine(r.Description))
			}
		} else {
			t := v.Templates[i-len(v.Resources)]
			fmt.Fprintf(&b, "template %s", t.URITemplate)
			if t.Name != "" {
				fmt.Fprintf(&b, " (%s)", t.Name)
			}
			if t.Description != "" {
				fmt.Fprintf(&b, ": %s", oneLine(t.Description))
			}
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "[entries %d-%d of %d", in.Offset, end, total)
	if end < total {
		fmt.Fprintf(&b, "; call list_resources with offset=%d for more", end)
	}
	b.WriteString("]")
	return ext.TextResult(b.String()), nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

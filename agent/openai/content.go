package openai

import (
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/ext"
)

// part is one piece of a message's content in the form both OpenAI APIs share: text, or a
// binary the API can take as it is (an image, or audio in a format input_audio accepts, or
// a file), with its data URL.
type part struct {
	text string
	// kind is "" for text, else "image", "audio" or "file".
	kind     string
	mimeType string
	data     []byte
	name     string // a file's name
}

// dataURL returns p's binary as a data: URL.
func (p part) dataURL() string { return "data:" + p.mimeType + ";base64," + p.base64() }

func (p part) base64() string { return base64.StdEncoding.EncodeToString(p.data) }

// audioFormat returns the input_audio format of an audio MIME type, "" when the chat API
// takes none (it takes wav and mp3).
func audioFormat(mimeType string) string {
	switch strings.ToLower(mimeType) {
	case "audio/wav", "audio/x-wav", "audio/wave":
		return "wav"
	case "audio/mpeg", "audio/mp3":
		return "mp3"
	}
	return ""
}

// parts maps a message's MCP content to parts. Every kind keeps a text trace, so a model
// that cannot see the binary still knows it was there and how to get at it:
//
//   - text is text;
//   - image is an image part;
//   - audio is an audio part (wav, mp3 for the chat API; none for the responses API, which
//     takes no audio in a tool's output: a note instead);
//   - an embedded resource with text is that text, wrapped in <resource uri="…">; with a
//     blob, an image part for an image, a file part for a PDF (responses) and otherwise a
//     note of its URI, MIME type and size;
//   - a resource link is a line naming its URI (readable with read_resource), name, title,
//     description and MIME type;
//   - structured content is JSON text, sent only when the content has no text part (MCP
//     asks a tool with structured content to also give it as text, so it is usually there).
//
// isError prefixes the first text with "Error: " where the API has no flag for it.
func parts(m agent.Message, withAudio, withFiles bool) []part {
	var out []part
	hasText := false
	for _, c := range m.Content {
		switch c.Type {
		case ext.ContentText:
			hasText = true
			out = append(out, part{text: c.Text})
		case ext.ContentImage:
			out = append(out, imagePart("image", c.MIMEType, c.Data))
		case ext.ContentAudio:
			if withAudio && audioFormat(c.MIMEType) != "" {
				out = append(out, part{kind: "audio", mimeType: c.MIMEType, data: c.Data})
			} else {
				out = append(out, part{text: fmt.Sprintf("[audio %s, %d bytes: not sent, this API does not take it]", c.MIMEType, len(c.Data))})
			}
		case ext.ContentResource:
			out = append(out, resourcePart(c.Resource, withFiles))
		case ext.ContentResourceLink:
			out = append(out, part{text: agent.LinkText(c)})
		}
	}
	if !hasText && len(m.StructuredContent) > 0 {
		out = append(out, part{text: string(m.StructuredContent)})
	}
	if m.IsError {
		out = markError(out)
	}
	return out
}

func resourcePart(r *ext.ResourceContents, withFiles bool) part {
	if r == nil {
		return part{text: "[empty resource]"}
	}
	switch {
	case r.Blob == nil:
		return part{text: fmt.Sprintf("<resource uri=%q mimeType=%q>\n%s\n</resource>", r.URI, r.MIMEType, r.Text)}
	case strings.HasPrefix(r.MIMEType, "image/"):
		return imagePart("resource "+r.URI, r.MIMEType, r.Blob)
	case withFiles && r.MIMEType == "application/pdf":
		return part{kind: "file", mimeType: r.MIMEType, data: r.Blob, name: fileName(r.URI)}
	}
	return part{text: fmt.Sprintf("[resource %s (%s, %d bytes): binary, not sent]", r.URI, r.MIMEType, len(r.Blob))}
}

// imageTypes are the image MIME types OpenAI takes; it rejects the whole request for another.
var imageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// imagePart is an image part when the API takes its type, else a note naming what (an image,
// a resource's URI) it was.
func imagePart(what, mimeType string, data []byte) part {
	if imageTypes[strings.ToLower(mimeType)] {
		return part{kind: "image", mimeType: mimeType, data: data}
	}
	return part{text: fmt.Sprintf("[%s (%s, %d bytes): not sent, the API takes PNG, JPEG, GIF and WebP images only]", what, mimeType, len(data))}
}

// fileName is the last segment of a URI, for a file part's name.
func fileName(uri string) string {
	if i := strings.LastIndexByte(uri, '/'); i >= 0 && i < len(uri)-1 {
		return uri[i+1:]
	}
	return uri
}

// markError makes the first text part say the result is an error (one is added if none).
func markError(ps []part) []part {
	for i := range ps {
		if ps[i].kind == "" {
			ps[i].text = "Error: " + ps[i].text
			return ps
		}
	}
	return append([]part{{text: "Error"}}, ps...)
}

// joinText joins the text parts of ps.
func joinText(ps []part) string {
	var texts []string
	for _, p := range ps {
		if p.kind == "" {
			texts = append(texts, p.text)
		}
	}
	return strings.Join(texts, "\n")
}

// system returns the instructions as one system prompt: the static part first, so the
// prompt's prefix is byte-stable and OpenAI's automatic prefix caching (and vLLM's, llama.cpp
// server's) hits; the dynamic part after a blank line.
func system(in agent.Instructions) string {
	switch {
	case in.Static == "":
		return in.Dynamic
	case in.Dynamic == "":
		return in.Static
	}
	return in.Static + "\n\n" + in.Dynamic
}

// arguments returns a tool call's arguments as the APIs carry them: a JSON object's text.
func arguments(c agent.ToolCall) string {
	if len(c.Arguments) == 0 {
		return "{}"
	}
	return string(c.Arguments)
}

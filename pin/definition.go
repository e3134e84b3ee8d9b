package pin

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"

	"github.com/agentpool/agentpool/ext"
)

// The kinds of definition a server lists.
const (
	KindTool     = "tool"
	KindPrompt   = "prompt"
	KindTemplate = "template"
)

// Definition is what a server says about one tool, prompt or resource template: the public
// text that reaches a model, and its digest. It holds nothing of the server's declaration.
type Definition struct {
	Kind        string `json:"kind"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// Schema is a tool's input schema, a prompt's arguments, a template's URI template and
	// MIME type.
	Schema json.RawMessage `json:"schema,omitempty"`
	// Output is a tool's output schema.
	Output      json.RawMessage `json:"output,omitempty"`
	Annotations json.RawMessage `json:"annotations,omitempty"`
	// Digest is the SHA-256, hex, of the RFC 8785 canonical form of the fields above.
	Digest string `json:"digest"`
	// URI is a resource template's URI template, which names it among its server's
	// templates (ID): two templates may share a name, or have none. Not covered by Digest
	// (Schema holds it).
	URI string `json:"uri,omitempty"`
	// Raw is the SHA-256, hex, of the fields as the server sent them (raw.go): a cache that
	// finds Digest without canonicalising, not covered by Digest and never compared as a pin.
	Raw string `json:"raw,omitempty"`

	// lazy, set on a definition found by its raw digest, which then holds its kind, name,
	// digest and raw digest only, makes the whole definition (fill).
	lazy func() Definition
}

// fill makes d whole when it was found by its raw digest.
func (d *Definition) fill() {
	if d.lazy != nil {
		*d = d.lazy()
	}
}

// ID is the definition's name within its server: "<kind>/<name>", or for a resource
// template "template/<URI template>".
func (d Definition) ID() string { return d.Kind + "/" + d.key() }

// key is what names d among its server's definitions of its kind: its name, or a template's
// URI template. `agentpool pins approve` takes it.
func (d Definition) key() string {
	if d.Kind == KindTemplate {
		return d.URI
	}
	return d.Name
}

// namedBy says whether n names d for `agentpool pins approve`: its key or its ID.
func (d Definition) namedBy(n string) bool { return d.key() == n || d.ID() == n }

// seal sets d.Digest. A schema that is not JSON is digested as the string it is, so that it
// still tells such schemas apart.
func (d Definition) seal() Definition {
	c := canons.Get().(*canon)
	defer c.free()
	var schema, output, annotations []byte
	d.Schema, schema = c.field(d.Schema)
	d.Output, output = c.field(d.Output)
	d.Annotations, annotations = c.field(d.Annotations)
	// The canonical form of d as JSON (its fields' names in order, omitempty as tagged),
	// written directly.
	h := c.scratch[:0]
	h = append(h, '{')
	if annotations != nil {
		h = append(append(h, `"annotations":`...), annotations...)
		h = append(h, ',')
	}
	if d.Description != "" {
		h = append(appendString(append(h, `"description":`...), d.Description), ',')
	}
	h = append(h, `"digest":"","kind":`...)
	h = appendString(h, d.Kind)
	h = appendString(append(h, `,"name":`...), d.Name)
	if output != nil {
		h = append(append(h, `,"output":`...), output...)
	}
	if schema != nil {
		h = append(append(h, `,"schema":`...), schema...)
	}
	if d.Title != "" {
		h = appendString(append(h, `,"title":`...), d.Title)
	}
	h = append(h, '}')
	c.scratch = h
	sum := sha256.Sum256(h)
	d.Digest = hex.EncodeToString(sum[:])
	return d
}

// field returns the form of raw a Definition keeps — its canonical form, or when raw is not
// JSON the JSON string of its text — and that form's canonical form, which the digest covers.
// Both are nil for an absent value or null.
func (c *canon) field(raw json.RawMessage) (keep json.RawMessage, digested []byte) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	c.out = c.out[:0]
	if c.text(raw) == nil {
		keep = slices.Clone(c.out)
		return keep, keep
	}
	keep, _ = json.Marshal(string(raw))
	c.out = c.out[:0]
	c.text(keep) // a JSON string: cannot fail
	return keep, slices.Clone(c.out)
}

// Tool returns the definition of t: its name, title, description, input and output schemas
// and annotations (not its icons or _meta, which do not reach a model as instructions).
func Tool(t ext.ToolEntry) Definition {
	d := Definition{Kind: KindTool, Name: t.Name, Title: t.Title, Description: t.Description,
		Schema: t.InputSchema, Output: t.OutputSchema}
	if t.Annotations != nil {
		d.Annotations, _ = json.Marshal(t.Annotations)
	}
	return d.seal()
}

// Prompt returns the definition of a prompt: its name, title, description and arguments.
func Prompt(name, title, description string, args []ext.CommandArgument) Definition {
	d := Definition{Kind: KindPrompt, Name: name, Title: title, Description: description}
	if len(args) > 0 {
		d.Schema, _ = json.Marshal(args)
	}
	return d.seal()
}

// Template returns the definition of a resource template: its name, title, description,
// URI template, MIME type and annotations.
func Template(t ext.ResourceTemplateEntry) Definition {
	schema, _ := json.Marshal(struct {
		URITemplate string `json:"uriTemplate"`
		MIMEType    string `json:"mimeType,omitempty"`
	}{t.URITemplate, t.MIMEType})
	d := Definition{Kind: KindTemplate, Name: t.Name, Title: t.Title, Description: t.Description,
		Schema: schema, Annotations: t.Annotations}.seal()
	d.URI = t.URITemplate
	return d
}

// keyTemplatesByURI re-keys, in a record written when resource templates were pinned by
// name, each template by its URI template (read from its Schema); digests do not change.
func keyTemplatesByURI(r *Record) {
	rekey := func(m map[string]Definition) map[string]string {
		moved := map[string]string{}
		for id, d := range m {
			if d.Kind != KindTemplate || d.URI != "" {
				continue
			}
			var s struct {
				URITemplate string `json:"uriTemplate"`
			}
			_ = json.Unmarshal(d.Schema, &s) // a template's schema is what Template wrote
			d.URI = s.URITemplate
			delete(m, id)
			m[d.ID()] = d
			moved[id] = d.ID()
		}
		return moved
	}
	moved := rekey(r.Pinned)
	rekey(r.Pending)
	for i, id := range r.Removed {
		if to, ok := moved[id]; ok {
			r.Removed[i] = to
		}
	}
	slices.Sort(r.Removed)
}

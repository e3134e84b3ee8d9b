package pin

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"

	"github.com/agentpool/agentpool/ext"
)

// A raw digest is a SHA-256 over a definition's fields as the server sent them, each prefixed
// with its length, before any canonicalisation. It is a cache, never a pin: the pins are the
// RFC 8785 digests. A pinned definition keeps the raw digest of the listing it was pinned or
// last matched from, so that a later process lists an unchanged definition with one SHA-256
// over its bytes; a raw digest that differs (a server that re-serialised its schema in
// another key order, or really changed it) is canonicalised and compared as always.

// rawDigester builds raw digests in one reused buffer; one per listing, not shared.
type rawDigester struct{ buf []byte }

func (r *rawDigester) str(s string) {
	r.buf = binary.BigEndian.AppendUint64(r.buf, uint64(len(s)))
	r.buf = append(r.buf, s...)
}

func (r *rawDigester) bytes(b []byte) {
	r.buf = binary.BigEndian.AppendUint64(r.buf, uint64(len(b)))
	r.buf = append(r.buf, b...)
}

func (r *rawDigester) flag(b bool) {
	if b {
		r.buf = append(r.buf, 1)
	} else {
		r.buf = append(r.buf, 0)
	}
}

func (r *rawDigester) optFlag(b *bool) {
	switch {
	case b == nil:
		r.buf = append(r.buf, 2)
	default:
		r.flag(*b)
	}
}

func (r *rawDigester) sum() string {
	s := sha256.Sum256(r.buf)
	r.buf = r.buf[:0]
	return hex.EncodeToString(s[:])
}

// tool returns the raw digest of t's digested fields (those Tool reads).
func (r *rawDigester) tool(t *ext.ToolEntry) string {
	r.str(KindTool)
	r.str(t.Name)
	r.str(t.Title)
	r.str(t.Description)
	r.bytes(t.InputSchema)
	r.bytes(t.OutputSchema)
	if a := t.Annotations; a == nil {
		r.flag(false)
	} else {
		r.flag(true)
		r.str(a.Title)
		r.flag(a.ReadOnlyHint)
		r.optFlag(a.DestructiveHint)
		r.flag(a.IdempotentHint)
		r.optFlag(a.OpenWorldHint)
	}
	return r.sum()
}

// prompt returns the raw digest of p's digested fields (those Prompt reads).
func (r *rawDigester) prompt(p *ext.CommandEntry) string {
	r.str(KindPrompt)
	r.str(p.Name)
	r.str(p.Title)
	r.str(p.Description)
	r.buf = binary.BigEndian.AppendUint64(r.buf, uint64(len(p.Arguments)))
	for _, a := range p.Arguments {
		r.str(a.Name)
		r.str(a.Title)
		r.str(a.Description)
		r.flag(a.Required)
	}
	return r.sum()
}

// template returns the raw digest of t's digested fields (those Template reads).
func (r *rawDigester) template(t *ext.ResourceTemplateEntry) string {
	r.str(KindTemplate)
	r.str(t.Name)
	r.str(t.Title)
	r.str(t.Description)
	r.str(t.URITemplate)
	r.str(t.MIMEType)
	r.bytes(t.Annotations)
	return r.sum()
}

// rawless says whether a definition of defs has the digest r pins it with but r keeps no raw
// digest of it (a record written before raw digests, or pinned from a listing whose raw
// digest was not taken).
func rawless(r *Record, defs []Definition) bool {
	for i := range defs {
		d := &defs[i]
		if old, ok := r.Pinned[d.ID()]; ok && old.Raw == "" && d.Raw != "" && old.Digest == d.Digest {
			return true
		}
	}
	return false
}

// keepRaw records in r the raw digest of each definition of defs that r pins with the same
// digest and no raw digest.
func keepRaw(r *Record, defs []Definition) {
	for i := range defs {
		d := &defs[i]
		if old, ok := r.Pinned[d.ID()]; ok && old.Raw == "" && d.Raw != "" && old.Digest == d.Digest {
			old.Raw = d.Raw
			r.Pinned[d.ID()] = old
		}
	}
}

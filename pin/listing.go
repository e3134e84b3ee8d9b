package pin

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"slices"

	"github.com/agentpool/agentpool/ext"
)

// lastListing is a listing as checked: listed again unchanged against the same pin file, it
// is served as it was without digesting or comparing anything.
type lastListing struct {
	entries any // []ext.ToolEntry, []ext.CommandEntry or []ext.ResourceTemplateEntry
	blocked map[string]error
	against *cachedRecord
}

// toolCache is the last tools listing's entries and their definitions, and where each tool
// is in them by name: a tool listed again unchanged is not digested again.
type toolCache struct {
	entries []ext.ToolEntry
	defs    []Definition
	at      map[string]int
}

// Tools checks a tools listing (named as the server names them): on the first listing of the
// server it pins every tool; later it compares. It returns the tools to serve — all of them
// under Warn, all but the changed and new ones under Block — and, by the server's name for
// it, the error a call to each tool kept out gets. A pin file that cannot be read keeps every
// tool out under Block (fails closed) and is reported under Warn.
func (g *Guard) Tools(upstream []ext.ToolEntry) ([]ext.ToolEntry, map[string]error) {
	if g.mode == Off {
		return upstream, nil
	}
	if blocked, ok := sameAsLast(g, KindTool, upstream, sameTool); ok {
		return serveTools(upstream, blocked)
	}
	names := make([]string, len(upstream))
	for i, t := range upstream {
		names[i] = t.Name
	}
	blocked := g.checkNamed(KindTool, names, func(r *Record) []Definition { return g.toolDefs(upstream, r) })
	g.setLast(KindTool, upstream, blocked)
	return serveTools(upstream, blocked)
}

// serveTools returns upstream without the tools blocked names, and a copy of blocked (nil
// when empty).
func serveTools(upstream []ext.ToolEntry, blocked map[string]error) ([]ext.ToolEntry, map[string]error) {
	if len(blocked) == 0 {
		return upstream, nil
	}
	served := make([]ext.ToolEntry, 0, len(upstream))
	for _, t := range upstream {
		if blocked[t.Name] == nil {
			served = append(served, t)
		}
	}
	return served, maps.Clone(blocked)
}

// Prompts checks a prompts listing (Name as the server names each prompt, Arguments in
// order) as Tools checks tools. It returns, by the server's name for it, the error a
// prompts/get of each prompt kept out gets; the caller serves the others.
func (g *Guard) Prompts(upstream []ext.CommandEntry) map[string]error {
	if g.mode == Off {
		return nil
	}
	if blocked, ok := sameAsLast(g, KindPrompt, upstream, samePrompt); ok {
		return maps.Clone(blocked)
	}
	names := make([]string, len(upstream))
	for i, p := range upstream {
		names[i] = p.Name
	}
	blocked := g.checkNamed(KindPrompt, names, func(r *Record) []Definition {
		var rd rawDigester
		defs := make([]Definition, len(upstream))
		for i, p := range upstream {
			defs[i] = byRaw(r, KindPrompt+"/"+p.Name, rd.prompt(&p), func() Definition {
				return Prompt(p.Name, p.Title, p.Description, p.Arguments)
			})
		}
		return defs
	})
	g.setLast(KindPrompt, slices.Clone(upstream), blocked)
	return maps.Clone(blocked)
}

// Templates checks a resource-templates listing as Tools checks tools, each template pinned
// by its URI template. It returns, by URI template, why each template kept out is; the
// caller serves the others.
func (g *Guard) Templates(upstream []ext.ResourceTemplateEntry) map[string]error {
	if g.mode == Off {
		return nil
	}
	if blocked, ok := sameAsLast(g, KindTemplate, upstream, sameTemplate); ok {
		return maps.Clone(blocked)
	}
	uris := make([]string, len(upstream))
	for i, t := range upstream {
		uris[i] = t.URITemplate
	}
	blocked := g.checkNamed(KindTemplate, uris, func(r *Record) []Definition {
		var rd rawDigester
		defs := make([]Definition, len(upstream))
		for i, t := range upstream {
			defs[i] = byRaw(r, KindTemplate+"/"+t.URITemplate, rd.template(&t), func() Definition { return Template(t) })
		}
		return defs
	})
	g.setLast(KindTemplate, slices.Clone(upstream), blocked)
	return maps.Clone(blocked)
}

// checkNamed checks the listing of kind whose entries the server names names, defs making its
// definitions against the record read, and returns by name what is kept out.
func (g *Guard) checkNamed(kind string, names []string, defs func(r *Record) []Definition) map[string]error {
	drift, err := g.check(kind, defs)
	if err != nil {
		if g.mode != Block {
			return nil
		}
		blocked := make(map[string]error, len(names))
		for _, n := range names {
			blocked[n] = fmt.Errorf("mcp server %q: %s %q kept out: %w", g.server, kindWord(kind), n, err)
		}
		return blocked
	}
	return g.blocked(drift, kind)
}

// toolDefs returns the definitions of upstream against r, digesting only the tools that
// differ from the last listing's and, of those, canonicalising only the ones whose raw digest
// is not pinned. It keeps its own copy of upstream, which the definitions' texts are made
// from when needed.
func (g *Guard) toolDefs(upstream []ext.ToolEntry, r *Record) []Definition {
	own := slices.Clone(upstream)
	g.mu.Lock()
	prev := g.tools
	g.mu.Unlock()
	at := make(map[string]int, len(own))
	defs := make([]Definition, len(own))
	var rd rawDigester
	for i := range own {
		t := &own[i]
		if j, ok := prev.at[t.Name]; ok && sameTool(&prev.entries[j], t) {
			defs[i] = prev.defs[j]
		} else {
			defs[i] = byRaw(r, KindTool+"/"+t.Name, rd.tool(t), func() Definition { return Tool(*t) })
		}
		at[t.Name] = i
	}
	g.mu.Lock()
	g.tools = toolCache{entries: own, defs: defs, at: at}
	g.mu.Unlock()
	return defs
}

// byRaw returns the definition id whose raw digest is raw: when r pins id with that raw
// digest, the pinned digest, its texts made by full only when needed (Definition.fill);
// otherwise full's definition.
func byRaw(r *Record, id, raw string, full func() Definition) Definition {
	if r != nil {
		if old, ok := r.Pinned[id]; ok && old.Raw == raw && listed(r, old.Kind) {
			return Definition{Kind: old.Kind, Name: old.Name, URI: old.URI, Digest: old.Digest, Raw: raw, lazy: func() Definition {
				d := full()
				d.Raw = raw
				return d
			}}
		}
	}
	d := full()
	d.Raw = raw
	return d
}

// sameAsLast returns what the last listing of kind kept out when upstream lists the same
// entries (by same) in the same order and the pin file is the one that listing was checked
// against.
func sameAsLast[E any](g *Guard, kind string, upstream []E, same func(a, b *E) bool) (map[string]error, bool) {
	p, err := g.b.store.path(g.key)
	if err != nil {
		return nil, false
	}
	g.mu.Lock()
	last, cached, failed := g.last[kind], g.cached, g.err != nil
	g.mu.Unlock()
	if last == nil || failed || cached == nil || last.against != cached {
		return nil, false
	}
	prev, _ := last.entries.([]E)
	if len(prev) != len(upstream) {
		return nil, false
	}
	for i := range upstream {
		if !same(&prev[i], &upstream[i]) {
			return nil, false
		}
	}
	info, err := os.Stat(p)
	if err != nil || !sameFile(cached.info, info) {
		return nil, false
	}
	return last.blocked, true
}

// setLast records upstream, a listing of kind just checked, and what it kept out, when the
// check read or wrote the pin file without error.
func (g *Guard) setLast(kind string, upstream any, blocked map[string]error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.err != nil || g.cached == nil {
		return
	}
	if g.last == nil {
		g.last = map[string]*lastListing{}
	}
	g.last[kind] = &lastListing{entries: upstream, blocked: blocked, against: g.cached}
}

// sameTool says whether a and b have the same digested fields, byte for byte.
func sameTool(a, b *ext.ToolEntry) bool {
	if a.Name != b.Name || a.Title != b.Title || a.Description != b.Description ||
		!bytes.Equal(a.InputSchema, b.InputSchema) || !bytes.Equal(a.OutputSchema, b.OutputSchema) {
		return false
	}
	x, y := a.Annotations, b.Annotations
	if x == nil || y == nil {
		return x == y
	}
	return x.Title == y.Title && x.ReadOnlyHint == y.ReadOnlyHint && x.IdempotentHint == y.IdempotentHint &&
		sameBool(x.DestructiveHint, y.DestructiveHint) && sameBool(x.OpenWorldHint, y.OpenWorldHint)
}

func sameBool(a, b *bool) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// samePrompt says whether a and b have the same digested fields.
func samePrompt(a, b *ext.CommandEntry) bool {
	return a.Name == b.Name && a.Title == b.Title && a.Description == b.Description && slices.Equal(a.Arguments, b.Arguments)
}

// sameTemplate says whether a and b have the same digested fields, byte for byte.
func sameTemplate(a, b *ext.ResourceTemplateEntry) bool {
	return a.URITemplate == b.URITemplate && a.Name == b.Name && a.Title == b.Title && a.Description == b.Description &&
		a.MIMEType == b.MIMEType && bytes.Equal(a.Annotations, b.Annotations)
}

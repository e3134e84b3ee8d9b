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
	g.mu.Lock()
	prev := g.tools
	g.mu.Unlock()
	var own []ext.ToolEntry // upstream's copy the definitions' texts are made from, when needed
	l := listing{kind: KindTool, keys: make([]string, len(upstream)), raws: make([]string, len(upstream)),
		full: func(i int) Definition { return Tool(own[i]) }}
	l.before = func() { own = slices.Clone(upstream) }
	from := make([]int, len(upstream)) // 1 + where the last listing had the tool unchanged, or 0
	var rd rawDigester
	for i := range upstream {
		t := &upstream[i]
		l.keys[i] = t.Name
		if j, ok := prev.at[t.Name]; ok && sameTool(&prev.entries[j], t) {
			from[i], l.raws[i] = j+1, prev.defs[j].Raw
		} else {
			l.raws[i] = rd.tool(t)
		}
	}
	l.have = func(i int) (Definition, bool) {
		if from[i] == 0 {
			return Definition{}, false
		}
		return prev.defs[from[i]-1], true
	}
	blocked := g.checkNamed(&l)
	if l.defs != nil {
		at := make(map[string]int, len(l.keys))
		for i, k := range l.keys {
			at[k] = i
		}
		g.mu.Lock()
		g.tools = toolCache{entries: own, defs: l.defs, at: at}
		g.mu.Unlock()
	}
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
	own := slices.Clone(upstream)
	l := listing{kind: KindPrompt, keys: make([]string, len(own)), raws: make([]string, len(own)),
		full: func(i int) Definition { p := &own[i]; return Prompt(p.Name, p.Title, p.Description, p.Arguments) }}
	var rd rawDigester
	for i := range own {
		l.keys[i], l.raws[i] = own[i].Name, rd.prompt(&own[i])
	}
	blocked := g.checkNamed(&l)
	g.setLast(KindPrompt, own, blocked)
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
	own := slices.Clone(upstream)
	l := listing{kind: KindTemplate, keys: make([]string, len(own)), raws: make([]string, len(own)),
		full: func(i int) Definition { return Template(own[i]) }}
	var rd rawDigester
	for i := range own {
		l.keys[i], l.raws[i] = own[i].URITemplate, rd.template(&own[i])
	}
	blocked := g.checkNamed(&l)
	g.setLast(KindTemplate, own, blocked)
	return maps.Clone(blocked)
}

// listing is one listing of a kind as a Guard checks it: each entry's key (what it is blocked
// by: a name, a template's URI template) and raw digest, and how to make its definition.
type listing struct {
	kind       string
	keys, raws []string
	// full makes entry i's definition; have, when set, gives it when the guard kept it;
	// before, when set, runs before any definition is made.
	full   func(i int) Definition
	have   func(i int) (Definition, bool)
	before func()
	// defs are the definitions made (makeDefs), nil while none were needed.
	defs []Definition
}

// digest is the listing's digest: a SHA-256 over its kind and its entries' raw digests, in
// order; "" when two entries share a key, since only one of them can be pinned and such a
// listing is never clean.
func (l *listing) digest() string {
	seen := make(map[string]struct{}, len(l.keys))
	for _, k := range l.keys {
		if _, dup := seen[k]; dup {
			return ""
		}
		seen[k] = struct{}{}
	}
	var rd rawDigester
	rd.str(l.kind)
	for _, r := range l.raws {
		rd.str(r)
	}
	return rd.sum()
}

// makeDefs returns the listing's definitions against r: those found by their raw digest among
// r's pins make their texts only when needed.
func (l *listing) makeDefs(r *Record) []Definition {
	if l.before != nil {
		l.before()
	}
	defs := make([]Definition, len(l.keys))
	for i := range defs {
		if l.have != nil {
			if d, ok := l.have(i); ok {
				defs[i] = d
				continue
			}
		}
		defs[i] = byRaw(r, l.kind+"/"+l.keys[i], l.raws[i], func() Definition { return l.full(i) })
	}
	l.defs = defs
	return defs
}

// checkNamed checks l and returns by key what is kept out.
func (g *Guard) checkNamed(l *listing) map[string]error {
	drift, err := g.check(l)
	if err != nil {
		if g.mode != Block {
			return nil
		}
		blocked := make(map[string]error, len(l.keys))
		for _, k := range l.keys {
			blocked[k] = fmt.Errorf("mcp server %q: %s %q kept out: %w", g.server, kindWord(l.kind), k, err)
		}
		return blocked
	}
	return g.blocked(drift, l.kind)
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

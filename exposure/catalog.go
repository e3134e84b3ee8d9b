package exposure

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"sync"

	"github.com/agentpool/agentpool/toolsearch"
	"github.com/agentpool/agentpool/view"
)

// maxIndexes bounds the distinct tool sets a Catalog keeps an index for.
const maxIndexes = 64

// A Catalog holds the search indexes of the sessions it serves: one per distinct set of
// tools and skills, so that sessions seeing the same tools share one, and each built from the
// last by toolsearch's With for the servers whose tools differ, so that a reloaded server
// re-indexes only itself. A Catalog is safe for concurrent use; the zero Catalog is not
// usable: start from NewCatalog.
type Catalog struct {
	mu    sync.Mutex
	last  *indexed
	byKey map[string]*indexed
}

// indexed is one index and the fingerprint of each server's docs in it.
type indexed struct {
	ix  *toolsearch.Index
	fps map[string]string // server ("" for skills) → digest of its docs
}

// NewCatalog returns an empty Catalog.
func NewCatalog() *Catalog {
	return &Catalog{last: &indexed{ix: toolsearch.New(), fps: map[string]string{}}, byKey: map[string]*indexed{}}
}

// Index returns the index of v's tools and skills: the one already built for the same docs,
// or one made from the last built by replacing the servers that differ.
func (c *Catalog) Index(v *view.View) *toolsearch.Index {
	docs := docsOf(v)
	fps := make(map[string]string, len(docs))
	servers := make([]string, 0, len(docs))
	for server, ds := range docs {
		fps[server] = fingerprint(ds)
		servers = append(servers, server)
	}
	slices.Sort(servers)
	var key strings.Builder
	for _, s := range servers {
		key.WriteString(s + "\x00" + fps[s] + "\x00")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if in, ok := c.byKey[key.String()]; ok {
		return in.ix
	}
	ix := c.last.ix
	for _, s := range servers {
		if c.last.fps[s] != fps[s] {
			ix = ix.With(s, docs[s])
		}
	}
	for s := range c.last.fps {
		if _, ok := fps[s]; !ok {
			ix = ix.With(s, nil)
		}
	}
	in := &indexed{ix: ix, fps: fps}
	if len(c.byKey) >= maxIndexes {
		clear(c.byKey)
	}
	c.byKey[key.String()] = in
	c.last = in
	return ix
}

// docsOf returns v's tools by server (capability), each with its server's instructions, and
// its skills under "".
func docsOf(v *view.View) map[string][]toolsearch.Doc {
	docs := map[string][]toolsearch.Doc{}
	ins := v.ServerInstructions()
	for i := range v.Tools {
		t := &v.Tools[i]
		docs[t.Capability] = append(docs[t.Capability], toolsearch.Doc{
			Key: t.Name, Kind: toolsearch.KindTool, Name: t.Name, Title: t.Entry.Title,
			Description: t.Entry.Description, Params: toolsearch.ParamsOf(t.Entry.InputSchema),
			ServerInstructions: ins[t.Capability],
		})
	}
	for i := range v.Skills {
		sk := &v.Skills[i]
		docs[""] = append(docs[""], toolsearch.Doc{Key: sk.Name, Kind: toolsearch.KindSkill, Name: sk.Name, Description: sk.Description})
	}
	return docs
}

// fingerprint digests what the index reads of docs.
func fingerprint(docs []toolsearch.Doc) string {
	h := sha256.New()
	for _, d := range docs {
		h.Write([]byte(d.Key + "\x00" + d.Name + "\x00" + d.Title + "\x00" + d.Description + "\x00" + d.ServerInstructions + "\x00"))
		for _, p := range d.Params {
			h.Write([]byte(p.Name + "\x01" + p.Description + "\x01"))
		}
		h.Write([]byte{byte(d.Kind), 0xff})
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

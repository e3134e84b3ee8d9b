package pin

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/ext"
)

// indexRaw returns the raw digests the index line of key's pin file holds, by ID.
func indexRaw(t *testing.T, store *Store, key string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(store.Dir(), key+".json"))
	if err != nil {
		t.Fatal(err)
	}
	head, _, _ := bytes.Cut(data, []byte{'\n'})
	var x struct{ Raw map[string]string }
	if err := json.Unmarshal(head, &x); err != nil {
		t.Fatalf("index line %q: %v", head, err)
	}
	return x.Raw
}

// A process lists a server's unchanged tools by their raw digests; what drifted it still
// canonicalises, reports with its diffs and records whole.
func TestFirstListingMatchesRawDigests(t *testing.T) {
	store := NewStore(t.TempDir())
	key := Key("user", "s", decl.Server{})
	tools := []ext.ToolEntry{
		tool("a", "Reads a.", `{"type":"object","properties":{"x":{"type":"string"}}}`),
		tool("b", "Reads b.", `{"type":"object"}`),
		tool("c", "Reads c.", `{}`),
	}
	NewBook(store, nil, nil).Guard(key, "s", "user", Block).Tools(tools)
	raws := indexRaw(t, store, key)
	if len(raws) != 3 {
		t.Fatalf("index raw digests %v; want one per pinned tool", raws)
	}

	// The same tools, a's schema in another key order (the same pin) and c changed.
	again := []ext.ToolEntry{
		tool("a", "Reads a.", `{"properties":{"x":{"type":"string"}},"type":"object"}`),
		tools[1],
		tool("c", "Reads c and sends it away.", `{}`),
	}
	g := NewBook(store, nil, nil).Guard(key, "s", "user", Block)
	served, blocked := g.Tools(again)
	if names(served) != "a,b" || len(blocked) != 1 || blocked["c"] == nil {
		t.Fatalf("served %s, blocked %v; want a,b served and c kept out", names(served), blocked)
	}
	drift := g.b.Drift()
	if len(drift) != 1 || len(drift[0].Drift) != 1 || len(drift[0].Drift[0].Description) == 0 {
		t.Fatalf("drift %+v; want c changed, with its description's diff", drift)
	}
	r, err := store.Load(key)
	if err != nil {
		t.Fatal(err)
	}
	if p := r.Pending["tool/c"]; p.Description != "Reads c and sends it away." || p.Digest != Tool(again[2]).Digest {
		t.Errorf("pending c: %+v; want its whole definition", p)
	}
	if raw := indexRaw(t, store, key); raw["tool/a"] != raws["tool/a"] {
		t.Errorf("a's raw digest %q became %q: the first one is kept", raws["tool/a"], raw["tool/a"])
	}

	// Reset under a guard that found its tools by raw digest: what it pins afresh is whole.
	if _, err := store.Reset("s"); err != nil {
		t.Fatal(err)
	}
	g.b.Changed()
	g.Tools(tools)
	if r, err = store.Load(key); err != nil {
		t.Fatal(err)
	}
	for id, d := range r.Pinned {
		if d.Description == "" || d.Schema == nil || d.Raw == "" {
			t.Errorf("re-pinned %s: %+v; want its whole definition and raw digest", id, d)
		}
	}
}

// A pin file written before raw digests gains them at the next listing that matches it.
func TestPinsWithoutRawDigestsGainThem(t *testing.T) {
	store := NewStore(t.TempDir())
	key := Key("user", "s", decl.Server{})
	tools := []ext.ToolEntry{tool("a", "Reads a.", `{}`)}
	err := store.Update(key, func(*Record) (*Record, bool, error) {
		return &Record{Server: "s", Origin: "user", Listed: []string{KindTool},
			Pinned: map[string]Definition{"tool/a": Tool(tools[0])}}, true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if raw := indexRaw(t, store, key); len(raw) != 0 {
		t.Fatalf("raw digests %v before any listing", raw)
	}
	if _, blocked := NewBook(store, nil, nil).Guard(key, "s", "user", Block).Tools(tools); len(blocked) != 0 {
		t.Fatalf("blocked %v", blocked)
	}
	var rd rawDigester
	if raw := indexRaw(t, store, key); raw["tool/a"] != rd.tool(&tools[0]) {
		t.Errorf("raw digests %v after a listing; want a's", raw)
	}
}

// A listing that matched the pins is recorded clean first in the index line, and forgotten
// as soon as something of its kind is pending or its pins change: a process listing it again
// after an approval still sees what the approval changed.
func TestCleanListingLastsOnlyAsLongAsItsPins(t *testing.T) {
	store := NewStore(t.TempDir())
	key := Key("user", "s", decl.Server{})
	p := filepath.Join(store.Dir(), key+".json")
	before := []ext.ToolEntry{tool("a", "Reads a.", `{}`), tool("c", "Reads c.", `{}`)}
	after := []ext.ToolEntry{before[0], tool("c", "Reads c and sends it away.", `{}`)}
	list := func(tools []ext.ToolEntry) map[string]error {
		g := NewBook(store, nil, nil).Guard(key, "s", "user", Block)
		defer g.Close()
		_, blocked := g.Tools(tools)
		return blocked
	}
	clean := func() bool {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		_, m := cleanOf(data)
		return m[KindTool] != ""
	}
	if b := list(before); len(b) != 0 || !clean() {
		t.Fatalf("first listing: blocked %v, clean %v", b, clean())
	}
	if b := list(before); len(b) != 0 {
		t.Fatalf("the clean listing again: blocked %v", b)
	}
	if b := list(after); len(b) != 1 || b["c"] == nil || clean() {
		t.Fatalf("c changed: blocked %v, clean %v; want c kept out and no clean listing", b, clean())
	}
	if _, err := store.Approve("s", []string{"c"}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if b := list(before); len(b) != 1 || b["c"] == nil {
		t.Errorf("the listing clean before the approval: blocked %v; want c, changed since", b)
	}
	if b := list(after); len(b) != 0 || !clean() {
		t.Errorf("the approved listing: blocked %v, clean %v", b, clean())
	}
}

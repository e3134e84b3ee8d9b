package toolsearch

import (
	"encoding/json"
	"math"
	"slices"
	"testing"
)

// FuzzSearch indexes a doc made of arbitrary text and schema beside fixed ones and searches it
// with arbitrary queries: nothing panics, hits are at most the limit, positive, best first and
// the same on a second search, filters hold, and the doc is found by its own description.
func FuzzSearch(f *testing.F) {
	f.Add("browser_take_screenshot", "Take a screenshot of the current page", `{"type":"object","properties":{"fullPage":{"type":"boolean","description":"Whole page"}}}`, "take a screenshot of the page", "playwright")
	f.Add("getFileContents", "Get the contents of a file from a GitHub repository", `{"properties":{"owner":{"description":"Owner"},"opts":{"properties":{"ref":{}}}}}`, "show me the README of a GitHub repository at https://github.com/x/y", "github")
	f.Add("HTTPServer.v2-do_it", "ÄÖÜ ünïcode 日本語 ⁠zero​width", `[]`, "remember that Alice works at Acme.com; open notes.txt", "")
	f.Add("", "", ``, "", "s")
	f.Add("aaaaaaaaaaaaaaaa", "the of a an", `{"properties":{"":{"description":""}}}`, "   ...   ", "x")
	f.Fuzz(func(t *testing.T, name, desc, schema, query, server string) {
		fixed := []Doc{
			{Key: "read_graph", Name: "read_graph", Description: "Read the entire knowledge graph"},
			{Key: "navigate", Name: "browser_navigate", Description: "Navigate to a URL"},
		}
		ix := New().With("fixed", fixed)
		if server != "" { // "" holds skills; a server named so replaces them
			ix = ix.With("", []Doc{{Key: "skill", Kind: KindSkill, Name: "skill", Description: desc}})
		}
		ix = ix.With(server, []Doc{{Key: "fuzzed", Name: name, Description: desc, Params: ParamsOf(json.RawMessage(schema)), ServerInstructions: query}})
		total := ix.Len()
		check := func(q string, opt Options) []Hit {
			hits := ix.Search(q, opt)
			limit := opt.Limit
			if limit <= 0 {
				limit = defaultLimit
			}
			if len(hits) > limit {
				t.Fatalf("Search(%q) gave %d hits, limit %d", q, len(hits), limit)
			}
			for i, h := range hits {
				if !(h.Score > 0) || math.IsInf(h.Score, 0) {
					t.Fatalf("Search(%q): hit %d has score %v", q, i, h.Score)
				}
				if i > 0 && better(h, hits[i-1]) {
					t.Fatalf("Search(%q): hit %d ranks before hit %d", q, i, i-1)
				}
				if len(opt.Servers) > 0 && !slices.Contains(opt.Servers, h.Doc.Server) {
					t.Fatalf("Search(%q, servers %q) gave a doc of %q", q, opt.Servers, h.Doc.Server)
				}
				if len(opt.Kinds) > 0 && !slices.Contains(opt.Kinds, h.Doc.Kind) {
					t.Fatalf("Search(%q, kinds %v) gave a %v", q, opt.Kinds, h.Doc.Kind)
				}
			}
			again := ix.Search(q, opt)
			if !slices.EqualFunc(hits, again, func(a, b Hit) bool { return a.Doc == b.Doc && a.Score == b.Score }) {
				t.Fatalf("Search(%q) differs from itself", q)
			}
			return hits
		}
		check(query, Options{})
		check(query, Options{Limit: 1})
		check(query, Options{Servers: []string{server}, Limit: total})
		check(query, Options{Kinds: []Kind{KindSkill}})
		if len(words(desc, nil)) > 0 {
			hits := check(desc, Options{Servers: []string{server}, Kinds: []Kind{KindTool}, Limit: total})
			if !slices.ContainsFunc(hits, func(h Hit) bool { return h.Doc.Key == "fuzzed" }) {
				t.Fatalf("a doc is not found by its own description %q", desc)
			}
		}
	})
}

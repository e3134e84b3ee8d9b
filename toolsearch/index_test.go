package toolsearch

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
)

func keys(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Doc.Server+"/"+h.Doc.Key)
	}
	return out
}

func smallIndex() *Index {
	return New().
		With("memory", []Doc{
			{Key: "memory__create_entities", Name: "create_entities", Description: "Create multiple new entities in the knowledge graph"},
			{Key: "memory__read_graph", Name: "read_graph", Description: "Read the entire knowledge graph"},
		}).
		With("browser", []Doc{
			{Key: "browser__browser_take_screenshot", Name: "browser_take_screenshot", Description: "Take a screenshot of the current page"},
			{Key: "browser__browser_navigate", Name: "browser_navigate", Description: "Navigate to a URL",
				Params: []Param{{Name: "url", Description: "The URL to navigate to"}}},
		}).
		With("", []Doc{
			{Key: "pdf", Kind: KindSkill, Name: "pdf", Description: "Fill PDF forms and extract text from PDF files"},
		})
}

func TestSearchRanksByWords(t *testing.T) {
	ix := smallIndex()
	for _, c := range []struct{ query, want string }{
		{"take a screenshot of the page", "browser/browser__browser_take_screenshot"},
		{"open this url", "browser/browser__browser_navigate"},
		{"createEntities", "memory/memory__create_entities"},
		{"fill in a PDF form", "/pdf"},
		{"screenshots", "browser/browser__browser_take_screenshot"},
	} {
		got := keys(ix.Search(c.query, Options{}))
		if len(got) == 0 || got[0] != c.want {
			t.Errorf("Search(%q) = %v, want %s first", c.query, got, c.want)
		}
	}
	if got := ix.Search("the of a", Options{}); got != nil {
		t.Errorf("a query of common words only = %v, want nil", keys(got))
	}
	if got := New().Search("graph", Options{}); got != nil {
		t.Errorf("an empty index = %v, want nil", keys(got))
	}
	var zero Index
	if got := zero.Search("graph", Options{}); got != nil || zero.Len() != 0 {
		t.Errorf("the zero index = %v, Len %d; want nil, 0", keys(got), zero.Len())
	}
	if got := zero.With("memory", []Doc{{Key: "k", Name: "read_graph"}}).Search("graph", Options{}); len(got) != 1 {
		t.Errorf("With on the zero index: %v", keys(got))
	}
}

func TestSearchOptions(t *testing.T) {
	ix := smallIndex()
	if got := keys(ix.Search("graph screenshot pdf url", Options{Servers: []string{"memory"}})); len(got) == 0 || slices.ContainsFunc(got, func(k string) bool { return k[:7] != "memory/" }) {
		t.Errorf("Servers memory: %v", got)
	}
	if got := keys(ix.Search("graph screenshot pdf url", Options{Kinds: []Kind{KindSkill}})); !slices.Equal(got, []string{"/pdf"}) {
		t.Errorf("Kinds skill: %v", got)
	}
	if got := ix.Search("graph screenshot pdf url navigate entities", Options{Limit: 2}); len(got) != 2 {
		t.Errorf("Limit 2: %d hits", len(got))
	}
	if got := ix.Search("graph screenshot pdf url navigate entities", Options{}); len(got) != defaultLimit {
		t.Errorf("no Limit: %d hits, want %d", len(got), defaultLimit)
	}
}

func TestWithSharesOtherServers(t *testing.T) {
	ix := smallIndex()
	memory, browser := ix.shards["memory"], ix.shards["browser"]
	next := ix.With("memory", []Doc{{Key: "m__add_observations", Name: "add_observations", Description: "Add new observations"}})
	if next.shards["browser"] != browser {
		t.Error("With(memory) rebuilt the browser server's postings")
	}
	if ix.shards["memory"] != memory || len(ix.Search("entities", Options{})) == 0 {
		t.Error("With changed the index it was called on")
	}
	if got := keys(next.Search("observations", Options{})); !slices.Equal(got, []string{"memory/m__add_observations"}) {
		t.Errorf("after With: %v", got)
	}
	if got := next.Search("entities", Options{}); len(got) != 0 {
		t.Errorf("replaced docs still found: %v", keys(got))
	}
	if n := next.With("memory", nil).Len(); n != 3 {
		t.Errorf("With(memory, nil).Len() = %d, want 3", n)
	}
}

func TestWithKeepsLastOfAKey(t *testing.T) {
	ix := New().With("s", []Doc{{Key: "k", Description: "first"}, {Key: "k", Description: "second"}, {Key: "j", Server: "other", Description: "third"}})
	if ix.Len() != 2 {
		t.Fatalf("Len = %d, want 2", ix.Len())
	}
	if got := ix.Search("second", Options{}); len(got) != 1 || got[0].Doc.Key != "k" {
		t.Errorf("Search(second) = %v", keys(got))
	}
	if got := ix.Search("third", Options{}); len(got) != 1 || got[0].Doc.Server != "s" {
		t.Errorf("a doc's Server is not the server it was indexed under: %v", keys(got))
	}
}

func TestSearchConcurrent(t *testing.T) {
	ix := smallIndex()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 100 {
				if len(ix.Search(fmt.Sprint("screenshot ", i), Options{})) == 0 {
					t.Error("no hit")
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestParamsOf(t *testing.T) {
	got := ParamsOf(json.RawMessage(`{"type":"object","properties":{
		"path":{"type":"string","description":"Where"},
		"opts":{"type":"object","properties":{"depth":{"description":"How deep"}}},
		"edits":{"type":"array","items":{"type":"object","properties":{"oldText":{"description":"Old"}}}}}}`))
	want := []Param{{"edits", ""}, {"edits.oldText", "Old"}, {"opts", ""}, {"opts.depth", "How deep"}, {"path", "Where"}}
	if !slices.Equal(got, want) {
		t.Errorf("ParamsOf = %v, want %v", got, want)
	}
	for _, bad := range []string{``, `null`, `[]`, `"x"`, `{"properties":7}`} {
		if got := ParamsOf(json.RawMessage(bad)); got != nil {
			t.Errorf("ParamsOf(%s) = %v, want nil", bad, got)
		}
	}
}

func TestWords(t *testing.T) {
	for in, want := range map[string][]string{
		"browser_take_screenshot": {"browser", "tak", "screenshot"},
		"getFileContents":         {"get", "fil", "content", "getfilecontent"},
		"HTTPServer v2":           {"http", "server", "httpserver", "v2"},
		"GitHub":                  {"git", "hub", "github"},
		"fs.read-files/now":       {"fs", "read", "fil", "now"},
		"creating created create": {"creat", "creat", "creat"},
		"queries running stopped": {"query", "run", "stop"},
		"Ünïcode ÄBC":             {"ünïcode", "äbc"},
		"string strings taking":   {"string", "string", "tak"},
	} {
		if got := words(in, nil); !slices.Equal(got, want) {
			t.Errorf("words(%q) = %q, want %q", in, got, want)
		}
	}
}

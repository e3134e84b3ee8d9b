package toolsearch

import (
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/goccy/go-yaml"
)

const requestsFile = "testdata/requests.yaml"

// request is one labelled request of testdata/requests.yaml: words, and the docs that serve it
// (label's form).
type request struct {
	Request string   `yaml:"request"`
	Tools   []string `yaml:"tools"`
}

func loadRequests(t testing.TB) []request {
	t.Helper()
	data, err := os.ReadFile(requestsFile)
	if err != nil {
		t.Fatal(err)
	}
	var rs []request
	if err := yaml.Unmarshal(data, &rs); err != nil {
		t.Fatalf("%s: %v", requestsFile, err)
	}
	return rs
}

// TestRequestsNameTestBedDocs checks the labelled set: at least 80 requests, each with at
// least one doc, every doc one of the test bed's.
func TestRequestsNameTestBedDocs(t *testing.T) {
	rs := loadRequests(t)
	if len(rs) < 80 {
		t.Errorf("%s has %d requests, want at least 80", requestsFile, len(rs))
	}
	known := map[string]bool{}
	for _, docs := range bedDocs(loadBed(t)) {
		for i := range docs {
			known[label(&docs[i])] = true
		}
	}
	seen := map[string]bool{}
	for _, r := range rs {
		if r.Request == "" || len(r.Tools) == 0 {
			t.Errorf("%s: request %q has no words or no tools", requestsFile, r.Request)
		}
		if seen[r.Request] {
			t.Errorf("%s: request %q twice", requestsFile, r.Request)
		}
		seen[r.Request] = true
		for _, tool := range r.Tools {
			if !known[tool] {
				t.Errorf("%s: request %q names %q, which the test bed does not have", requestsFile, r.Request, tool)
			}
		}
	}
}

// recall returns the share of requests for which one of the docs that serve it is among the
// first 1 and the first 5 hits of search; misses lists the requests missed at 5.
func recall(rs []request, search func(string) []Hit) (at1, at5 float64, misses []string) {
	for _, r := range rs {
		hits := search(r.Request)
		for i, h := range hits {
			if slices.Contains(r.Tools, label(h.Doc)) {
				if i == 0 {
					at1++
				}
				at5++
				break
			}
		}
		if !slices.ContainsFunc(hits, func(h Hit) bool { return slices.Contains(r.Tools, label(h.Doc)) }) {
			var got []string
			for _, h := range hits {
				got = append(got, label(h.Doc))
			}
			misses = append(misses, fmt.Sprintf("%q: want one of %v, got %v", r.Request, r.Tools, got))
		}
	}
	n := float64(len(rs))
	return at1 / n, at5 / n, misses
}

// TestRecall measures the ranker on the labelled requests over the test bed, beside plain BM25
// over name and description, and holds the ranker to recall@5 >= 0.9 and recall@1 >= 0.7.
func TestRecall(t *testing.T) {
	rs := loadRequests(t)
	ix := bedIndex(t)
	base := newPlainBM25(allDocs(ix))
	b1, b5, _ := recall(rs, func(q string) []Hit { return base.search(q, 5) })
	r1, r5, misses := recall(rs, func(q string) []Hit { return ix.Search(q, Options{Limit: 5}) })
	t.Logf("%d requests over %d docs: recall@1 %.3f, recall@5 %.3f (plain BM25 over name+description: %.3f, %.3f)", len(rs), ix.Len(), r1, r5, b1, b5)
	for _, m := range misses {
		t.Logf("missed at 5: %s", m)
	}
	if r5 < 0.9 || r1 < 0.7 {
		t.Errorf("recall@1 %.3f, recall@5 %.3f: want at least 0.7 and 0.9", r1, r5)
	}
}

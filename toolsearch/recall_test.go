package toolsearch

import (
	"os"
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

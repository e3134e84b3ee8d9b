package host

import (
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// The package doc is one comment: a blank line inside it would make go doc show only what
// follows the blank (the first sections, "Package host is…" included, silently dropped).
func TestPackageDocWhole(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	doc := f.Doc.Text()
	for _, want := range []string{"Package host is", "# Kinds", "# Decisions taken", "# Trust"} {
		if !strings.Contains(doc, want) {
			t.Errorf("package doc lacks %q; it begins:\n%.200s", want, doc)
		}
	}
}

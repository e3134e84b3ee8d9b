package agentpool_test

// This file keeps production comments stating contracts and reasons, not history: a comment in
// a non-test .go file never names a test, a benchmark or a fuzz target, nor tells how a defect
// was found. History belongs in commit messages, rationale in docs/design/.

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// testNameRE matches a test function's name: TestX, BenchmarkX, FuzzX (X upper case, a digit or
// '_', as `go test` requires). A name qualified by a package (fstest.TestFS,
// exttest.TestCapability) is an exported helper of a test-support package, not a test, and is
// allowed.
var testNameRE = regexp.MustCompile(`(^|[^\w.])((?:Test|Benchmark|Fuzz)[A-Z0-9_]\w*)`)

// narrationRE matches phrases that tell how a defect was found rather than what the code does.
var narrationRE = regexp.MustCompile(`(?i)\b(found in review|(a|the) review (showed|found)|CI failed|(found|caught|seen) by (a |the )?(test|fuzz|benchmark|CI)\b)`)

// testPrograms are directories of programs that tests run (servers and clients re-executed or
// spawned by tests) without importing package testing themselves; their comments may name the
// tests they serve. Packages whose non-test files import "testing" are test support too, and
// found without being listed.
var testPrograms = []string{"internal/testserver", "internal/conformanceclient"}

// commentProblems returns one line per comment of f that names a test or narrates how a defect
// was found, as "file:line: what".
func commentProblems(fset *token.FileSet, f *ast.File) []string {
	var out []string
	for _, g := range f.Comments {
		for _, c := range g.List {
			pos := fset.Position(c.Slash)
			for i, line := range strings.Split(c.Text, "\n") {
				where := pos.Filename + ":" + strconv.Itoa(pos.Line+i)
				for _, m := range testNameRE.FindAllStringSubmatch(line, -1) {
					out = append(out, where+": names the test "+m[2])
				}
				if m := narrationRE.FindString(line); m != "" {
					out = append(out, where+`: tells how a defect was found ("`+m+`")`)
				}
			}
		}
	}
	return out
}

// importsTesting reports whether f imports package testing.
func importsTesting(f *ast.File) bool {
	return slices.ContainsFunc(f.Imports, func(s *ast.ImportSpec) bool { return s.Path.Value == `"testing"` })
}

// TestCommentsNameNoTests parses every non-test .go file of the module and fails for each comment
// that names a test function or tells how a defect was found, outside test-support packages.
func TestCommentsNameNoTests(t *testing.T) {
	fset := token.NewFileSet()
	files := map[string][]*ast.File{} // by directory
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		files[dir] = append(files[dir], f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 10 {
		t.Fatalf("found Go files in %d folders only: not run from the module's root?", len(files))
	}
	for dir, group := range files {
		if slices.ContainsFunc(testPrograms, func(p string) bool { return dir == p || strings.HasPrefix(dir, p+"/") }) ||
			slices.ContainsFunc(group, importsTesting) {
			continue
		}
		for _, f := range group {
			for _, p := range commentProblems(fset, f) {
				t.Error(p)
			}
		}
	}
}

// TestCommentProblemsCatchesNarration checks the checker: the comments it must refuse, and those
// it must let pass.
func TestCommentProblemsCatchesNarration(t *testing.T) {
	src := `package p

// Close is idempotent (TestCloseTwice).
func Close() {}

// Parse never panics: FuzzParse found a nil dereference.
func Parse() {}

/* Measured by BenchmarkCompile. */
func Compile() {}

// Send retries once: found in review.
func Send() {}

// Wait returns at once (found by the test of a closed pool).
func Wait() {}

// Check applies the lifecycle contract, as testing/fstest.TestFS does for a file system.
func Check() {}

// Tests, Testing, TestableThing, Benchmarks and a fuzzing run are words, not tests.
func Words() {}

// Lookup returns the skill found by its name.
func Lookup() {}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	got := commentProblems(fset, f)
	want := []string{
		"p.go:3: names the test TestCloseTwice",
		"p.go:6: names the test FuzzParse",
		"p.go:9: names the test BenchmarkCompile",
		`p.go:12: tells how a defect was found ("found in review")`,
		`p.go:15: tells how a defect was found ("found by the test")`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("commentProblems:\ngot  %q\nwant %q", got, want)
	}
}

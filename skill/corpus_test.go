package skill

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/ext"
)

// corpusDir is the real-world corpus beside the repository (../shared/corpus from the repo root).
const corpusDir = "../../shared/corpus"

// corpus returns the corpus path, failing (not skipping) when it is missing: CI has shared/
// beside the clone.
func corpus(t testing.TB) string {
	t.Helper()
	abs, err := filepath.Abs(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(abs, "README.md")); err != nil {
		t.Fatalf("real-world skill corpus missing at %s (expected ../shared/corpus beside the repository): %v", abs, err)
	}
	return abs
}

// TestCorpusLoads checks that every skill of the real corpus loads, with no diagnostic but the
// one real problem there: claude-api's description is longer than 1,024 characters.
func TestCorpusLoads(t *testing.T) {
	root := corpus(t)
	var want []string
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == "SKILL.md" {
			want = append(want, filepath.Base(filepath.Dir(p)))
		}
		return nil
	})
	if len(want) != 26 {
		t.Fatalf("corpus holds %d SKILL.md files, want 26 (README.md)", len(want))
	}
	skills, diags := Discover([]string{root}, nil)
	got := map[string]*Skill{}
	for _, s := range skills {
		got[s.Name] = s
	}
	for _, name := range want {
		s := got[name]
		if s == nil {
			t.Errorf("skill %q not loaded", name)
			continue
		}
		if s.Description == "" {
			t.Errorf("skill %q: empty description", name)
		}
		body, err := s.Body()
		if err != nil || len(body) < 100 {
			t.Errorf("skill %q: body %d bytes, err %v", name, len(body), err)
		}
	}
	if len(skills) != len(want) {
		t.Errorf("loaded %d skills, want %d", len(skills), len(want))
	}
	claude := filepath.Join(root, "anthropics-skills", "claude-api", "SKILL.md")
	if len(diags) != 1 || diags[0].Path != claude || diags[0].Line != 3 || diags[0].Rule != RuleDescription || diags[0].Severity != SeverityWarning {
		t.Errorf("discovery diagnostics = %v, want only claude-api's long description (warning, line 3)", diags)
	}
}

// TestCorpusValidate checks that strict validation reports exactly the strict-rule failures of
// the corpus: claude-api's description over 1,024 characters, and nothing else.
func TestCorpusValidate(t *testing.T) {
	root := corpus(t)
	diags, err := Validate(root)
	if err != nil {
		t.Fatal(err)
	}
	claude := filepath.Join(root, "anthropics-skills", "claude-api", "SKILL.md")
	if len(diags) != 1 {
		t.Fatalf("Validate(corpus) = %v, want exactly one failure", diags)
	}
	d := diags[0]
	if d.Path != claude || d.Line != 3 || d.Rule != RuleDescription || d.Severity != SeverityError {
		t.Errorf("Validate(corpus) = %v, want claude-api description error on line 3", d)
	}
	// Each skill folder validated alone gives the same answer.
	for _, dir := range []string{"superpowers/brainstorming", "anthropics-skills/mcp-builder"} {
		ds, err := Validate(filepath.Join(root, dir))
		if err != nil || len(ds) != 0 {
			t.Errorf("Validate(%s) = %v, %v; want no failure", dir, ds, err)
		}
	}
	ds, err := Validate(claude)
	if err != nil || len(ds) != 1 || ds[0].Rule != RuleDescription {
		t.Errorf("Validate(%s) = %v, %v", claude, ds, err)
	}
}

// TestCorpusManager serves the corpus through a Manager: every SKILL.md readable by URI.
func TestCorpusManager(t *testing.T) {
	m := newTestManager(t, &Options{Roots: []string{corpus(t)}})
	ctx := context.Background()
	list, err := m.ListSkills(ctx)
	if err != nil || len(list) != 26 {
		t.Fatalf("ListSkills = %d entries, %v", len(list), err)
	}
	for _, e := range list {
		rc, err := m.ReadSkill(ctx, e.URI)
		if err != nil || len(rc) != 1 || rc[0].Text == "" || rc[0].MIMEType != "text/markdown" {
			t.Errorf("ReadSkill(%s) = %v, %v", e.URI, rc, err)
		}
	}
}

// TestCorpusCommandsVerbatim runs every skill of the corpus as a command with an argument through
// the Manager: none is a template, so each body comes back byte for byte (prices like $10.00 and
// awk's $1 included) with the argument line appended.
func TestCorpusCommandsVerbatim(t *testing.T) {
	m := newTestManager(t, &Options{Roots: []string{corpus(t)}})
	ctx := context.Background()
	cmds, err := m.ListCommands(ctx)
	if err != nil || len(cmds) != 26 {
		t.Fatalf("ListCommands = %d entries, %v; want 26", len(cmds), err)
	}
	const arg = "hello $1 world"
	dollars := 0
	for _, c := range cmds {
		data, err := os.ReadFile(c.Path)
		if err != nil {
			t.Fatal(err)
		}
		body := bodyOf(data)
		if !strings.Contains(strings.ReplaceAll(string(data), "\r\n", "\n"), body) {
			t.Fatalf("%s: body is not a slice of the file", c.Path)
		}
		dollars += strings.Count(body, "$")
		for _, name := range []string{c.Name, c.QualifiedName} {
			got, err := m.GetCommand(ctx, &ext.CommandRequest{Name: name, Args: []string{arg}})
			if err != nil {
				t.Errorf("GetCommand(%s): %v", name, err)
				continue
			}
			if want := body + "\n\nUser arguments: " + arg; got.Text() != want {
				t.Errorf("GetCommand(%s) changed the body:\n%s", name, firstDiff(want, got.Text()))
			}
		}
		got, err := m.GetCommand(ctx, &ext.CommandRequest{Name: c.Name})
		if err != nil || got.Text() != body {
			t.Errorf("GetCommand(%s) without arguments changed the body (err %v)", c.Name, err)
		}
	}
	if dollars < 50 {
		t.Errorf("corpus bodies hold %d dollar signs; the test expects the corpus's prices and shell snippets", dollars)
	}
}

// firstDiff describes where want and got first differ.
func firstDiff(want, got string) string {
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	lo := max(0, i-40)
	return fmt.Sprintf("at byte %d: want %q, got %q", i, want[lo:min(len(want), i+40)], got[lo:min(len(got), i+40)])
}

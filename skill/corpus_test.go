package skill

import (
	"context"
	"os"
	"path/filepath"
	"testing"
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
	root := corpus(t)
	m, err := NewManager(&Options{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(context.Background())
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

package examples_test

import (
	"context"
	"github.com/agentpool/agentpool/ext"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/examples"
	"github.com/agentpool/agentpool/skill"
)

// TestExamplesValid checks that every bundled skill passes strict validation.
func TestExamplesValid(t *testing.T) {
	diags, err := skill.Validate("skills")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range diags {
		t.Errorf("%v", d)
	}
}

// TestExamplesEmbedded checks that the embedded tree holds the same skills as the folder.
func TestExamplesEmbedded(t *testing.T) {
	entries, err := fs.ReadDir(examples.Skills, "skills")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if _, err := fs.Stat(examples.Skills, "skills/"+e.Name()+"/SKILL.md"); err != nil {
			t.Errorf("embedded %s has no SKILL.md: %v", e.Name(), err)
		}
		names = append(names, e.Name())
	}
	if got := strings.Join(names, ","); got != "code-review,explain,hello-world" {
		t.Errorf("embedded skills = %s", got)
	}
	if _, err := fs.Stat(examples.Skills, "skills/code-review/references/checklist.md"); err != nil {
		t.Errorf("code-review reference not embedded: %v", err)
	}
}

// TestExamplesServe loads the examples through a Manager and runs the explain command.
func TestExamplesServe(t *testing.T) {
	m, err := skill.NewManager(&skill.Options{Roots: []string{"skills"}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(context.Background())
	if d := m.Diagnostics(); len(d) != 0 {
		t.Errorf("diagnostics: %v", d)
	}
	out, err := m.GetCommand(context.Background(), &ext.CommandRequest{Name: "explain", Args: []string{"main.go", "beginner"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Text(), "Explain **main.go beginner**") || !strings.Contains(out.Text(), "given as `beginner`") {
		t.Errorf("expanded explain = %q", out.Text())
	}
	rc, err := m.ReadSkill(context.Background(), "skill://code-review/references/checklist.md")
	if err != nil || !strings.Contains(rc[0].Text, "Review checklist") {
		t.Errorf("read checklist = %v, %v", rc, err)
	}
}

// TestWriteSkills: every bundled skill is written, as a valid skill the same as the bundled one.
func TestWriteSkills(t *testing.T) {
	dir := t.TempDir()
	got, err := examples.WriteSkills(dir)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "code-review,explain,hello-world" {
		t.Errorf("written %v, want code-review, explain and hello-world", got)
	}
	diags, err := skill.Validate(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range diags {
		t.Errorf("%v", d)
	}
	want, err := os.ReadFile("skills/code-review/references/checklist.md")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "code-review", "references", "checklist.md")); err != nil || string(b) != string(want) {
		t.Errorf("written checklist.md differs: %v", err)
	}
}

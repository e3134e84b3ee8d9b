//go:build unix

package skill

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/regfile"
)

// mkfifo makes a named pipe at path and, at cleanup, opens it for writing once so that an
// open blocked on it (the defect these tests catch) returns and the test can end.
func mkfifo(t *testing.T, path string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	})
	return path
}

// returns fails the test when f has not returned after a generous time: a liveness bound.
func returns(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("%s blocked on a named pipe", what)
	}
}

// TestDiscoverFIFOSkillFile: a SKILL.md that is itself a named pipe is an error diagnostic
// naming it (it was silently not a skill at all), and the other skills still load.
func TestDiscoverFIFOSkillFile(t *testing.T) {
	root := t.TempDir()
	fifo := mkfifo(t, filepath.Join(root, "piped", "SKILL.md"))
	write(t, root, "fine/SKILL.md", skillMD("name: fine\ndescription: d\n", "Body"))
	var skills []*Skill
	var diags []Diagnostic
	returns(t, "Discover", func() { skills, diags = Discover([]string{root}, nil) })
	if len(skills) != 1 || skills[0].Name != "fine" {
		t.Errorf("skills %v, want fine alone", skills)
	}
	if len(diags) != 1 || diags[0].Path != fifo || diags[0].Severity != SeverityError || !strings.Contains(diags[0].Message, "is a named pipe, not a regular file") {
		t.Errorf("diagnostics:\n%s want one error on %s saying it is a named pipe", diagList(diags), fifo)
	}
}

// TestReadSkillFIFO: skill://fs/pipe, a named pipe inside a skill folder, is an error at once.
func TestReadSkillFIFO(t *testing.T) {
	root := t.TempDir()
	write(t, root, "fs/SKILL.md", skillMD("name: fs\ndescription: d\n", "Body"))
	mkfifo(t, filepath.Join(root, "fs", "pipe"))
	m := newTestManager(t, &Options{Roots: []string{root}})
	returns(t, "ReadSkill", func() {
		_, err := m.ReadSkill(context.Background(), "skill://fs/pipe")
		if !errors.Is(err, regfile.ErrNotRegular) || !strings.Contains(err.Error(), "skill://fs/pipe") {
			t.Errorf("ReadSkill(skill://fs/pipe) = %v, want a named pipe refused", err)
		}
	})
}

// TestValidateFIFO: `skills validate` of a named pipe, or of a folder whose SKILL.md is one,
// fails at once naming it.
func TestValidateFIFO(t *testing.T) {
	dir := t.TempDir()
	alone := mkfifo(t, filepath.Join(dir, "pipe"))
	inSkill := mkfifo(t, filepath.Join(dir, "skill", "SKILL.md"))
	for _, path := range []string{alone, inSkill, filepath.Dir(inSkill)} {
		returns(t, "Validate", func() {
			diags, err := Validate(path)
			if err != nil || len(diags) != 1 || diags[0].Severity != SeverityError || !strings.Contains(diags[0].Message, "named pipe") {
				t.Errorf("Validate(%s) = %v, %v; want one error saying named pipe", path, diagList(diags), err)
			}
		})
	}
}

// TestSkillExistsAgreesWithRead: a named pipe inside a skill folder, which ReadSkill refuses,
// is not reported as existing by SkillExists (it answered true, and the router then sent the
// read to a file that cannot be read): both refuse it with the same reason.
func TestSkillExistsAgreesWithRead(t *testing.T) {
	root := t.TempDir()
	write(t, root, "fs/SKILL.md", skillMD("name: fs\ndescription: d\n", "Body"))
	write(t, root, "fs/plain.txt", "plain")
	mkfifo(t, filepath.Join(root, "fs", "pipe"))
	m := newTestManager(t, &Options{Roots: []string{root}})
	ctx := context.Background()
	ok, err := m.SkillExists(ctx, "skill://fs/pipe")
	_, rerr := m.ReadSkill(ctx, "skill://fs/pipe")
	if ok || !errors.Is(err, regfile.ErrNotRegular) || !strings.Contains(err.Error(), "is a named pipe") || !errors.Is(rerr, regfile.ErrNotRegular) {
		t.Errorf("SkillExists(skill://fs/pipe) = %v, %v; ReadSkill error %v; want both refusing a named pipe", ok, err, rerr)
	}
	if ok, err := m.SkillExists(ctx, "skill://fs/plain.txt"); !ok || err != nil {
		t.Errorf("SkillExists(skill://fs/plain.txt) = %v, %v", ok, err)
	}
}

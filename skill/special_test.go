//go:build unix

package skill

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestDiscoverDoesNotOpenSpecialFiles: opening a named pipe blocks until a writer comes. A
// SKILL.md symlinked to a pipe outside the skill folder (a link a cloned repository can hold)
// and an mcp.json that is a pipe must be refused without opening them, or discovery hangs.
func TestDiscoverDoesNotOpenSpecialFiles(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	fifo := filepath.Join(outside, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	linked := filepath.Join(root, "linked")
	if err := os.MkdirAll(linked, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(fifo, filepath.Join(linked, "SKILL.md")); err != nil {
		t.Fatal(err)
	}
	withPipe := filepath.Join(root, "with-pipe")
	if err := os.MkdirAll(withPipe, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(withPipe, "SKILL.md"), []byte("---\nname: with-pipe\ndescription: d\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mcpPipe := filepath.Join(withPipe, "mcp.json")
	if err := syscall.Mkfifo(mcpPipe, 0o644); err != nil {
		t.Fatal(err)
	}

	type result struct {
		skills []*Skill
		diags  []Diagnostic
	}
	done := make(chan result, 1)
	go func() {
		s, d := Discover([]string{root}, nil)
		done <- result{s, d}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(20 * time.Second):
		t.Error("Discover blocked opening a named pipe")
		// Release the blocked opens so the goroutine ends.
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
			for _, p := range []string{fifo, mcpPipe} {
				if w, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					w.Close()
				}
			}
			select {
			case <-done:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
		t.Fatal("Discover still blocked")
	}
	if len(r.skills) != 1 || r.skills[0].Name != "with-pipe" {
		t.Fatalf("skills %v, want with-pipe alone; diagnostics %v", r.skills, r.diags)
	}
	found := false
	for _, d := range r.diags {
		found = found || d.Path == filepath.Join(linked, "SKILL.md") && d.Severity == SeverityError
	}
	if !found {
		t.Errorf("no error for the SKILL.md linked to a pipe: %v", r.diags)
	}
}

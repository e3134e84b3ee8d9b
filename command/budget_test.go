package command

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScanFolderBudget: a command root's scan reads at most maxFolders folders, then stops with
// one warning naming the root: a link to a big tree (all -> / in a cloned repository's
// .claude/commands walked the whole file system to depth 6, every *.md in it a command).
func TestScanFolderBudget(t *testing.T) {
	base := t.TempDir()
	big := filepath.Join(base, "big")
	for i := range 6 {
		for j := range 6 {
			d := filepath.Join(big, fmt.Sprint(i), fmt.Sprint(j))
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d, "c.md"), []byte("body"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	root := filepath.Join(base, "root")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "first.md"), []byte("body"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(big, filepath.Join(root, "all")); err != nil {
		t.Fatal(err)
	}
	cmds, diags := scanRoot(&scanFS{}, root, defaultMaxDepth, 10)
	if len(cmds) == 0 || len(cmds) > 10 {
		t.Errorf("%d commands from a 10-folder budget", len(cmds))
	}
	warned := 0
	for _, d := range diags {
		if d.Path == root && strings.Contains(d.Message, "more than 10 folders") {
			warned++
		}
	}
	if warned != 1 {
		t.Errorf("diagnostics %v, want one warning on the root about the folder budget", diags)
	}
}

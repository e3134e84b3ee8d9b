//go:build unix

package ext

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEscapeDoesNotNameTarget: a symlink inside the root leading out is ErrPathTraversal, and
// the error does not say where it leads (it reaches MCP clients through ReadSkill; a path
// outside the root, under the user's home, is none of theirs), for Confine and OpenConfined.
func TestEscapeDoesNotNameTarget(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	secretDir := filepath.Join(base, "private-target")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(secretDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(secretDir, "key"), []byte("k"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secretDir, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(secretDir, "gone"), filepath.Join(root, "dangling")); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"link/key", "link", "dangling"} {
		_, err := Confine(root, rel)
		_, oerr := OpenConfined(root, rel)
		for _, e := range []error{err, oerr} {
			if !errors.Is(e, ErrPathTraversal) || strings.Contains(e.Error(), "private-target") {
				t.Errorf("%s: %v, want ErrPathTraversal not naming the target", rel, e)
			}
		}
	}
}

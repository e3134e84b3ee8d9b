package fswatch

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestWatched: Watched lists the watched folders inside the roots, without what Skip leaves
// out, each once.
func TestWatched(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"a/b", "skip/x"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("a", filepath.Join(root, "again")); err != nil {
		t.Fatal(err)
	}
	w, err := New([]string{root}, &Options{Skip: func(p string) bool { return filepath.Base(p) == "skip" }}, func([]string) {})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	want := []string{root, filepath.Join(root, "a"), filepath.Join(root, "a", "b")}
	slices.Sort(want)
	if got := w.Watched(); !slices.Equal(got, want) {
		t.Errorf("Watched() = %v, want %v", got, want)
	}
}

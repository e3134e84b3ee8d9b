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

// TestMaxDirs: no more than MaxDirs directories are watched, the root first.
func TestMaxDirs(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"a/b/c", "d/e", "f"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w, err := New([]string{root}, &Options{MaxDirs: 3}, func([]string) {})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if got := w.Watched(); len(got) != 3 || got[0] != root {
		t.Errorf("Watched() = %v, want the root and two more", got)
	}
}

// TestMaxDirsPerRoot: one root's big tree does not use up another root's watches.
func TestMaxDirsPerRoot(t *testing.T) {
	big, small := t.TempDir(), t.TempDir()
	for _, d := range []string{"a/b/c", "d/e", "f"} {
		if err := os.MkdirAll(filepath.Join(big, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(small, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	w, err := New([]string{big, small}, &Options{MaxDirs: 2}, func([]string) {})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	got := w.Watched()
	if !slices.Contains(got, small) || !slices.Contains(got, filepath.Join(small, "x")) || len(got) != 4 {
		t.Errorf("Watched() = %v, want two folders of each root", got)
	}
}

package fswatch

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// The tests below hold w.mu while the file system changes, so the watcher's goroutine handles the
// events only after the change is complete: the order a loaded machine produces by chance.

// TestRootRenamedAwayAndBackBeforeHandled: a root renamed away and back keeps its inode, but the
// rename took its watch (and its subdirectories'); the root must be watched again.
func TestRootRenamedAwayAndBackBeforeHandled(t *testing.T) {
	base := tempDir(t)
	root := filepath.Join(base, "cmds")
	write(t, filepath.Join(root, "sub", "a.md"), "x")
	w, r := start(t, []string{root}, nil)

	aside := filepath.Join(base, "aside")
	whileBlocked(t, w,
		func() error { return os.Rename(root, aside) },
		func() error { return os.Rename(aside, root) })
	r.waitSeen(root)
	r.reset()
	probe(t, r, root)
	probe(t, r, filepath.Join(root, "sub"))
}

// TestRootRecreatedBeforeHandled: a root deleted and created again before the watcher handles the
// deletion (the new directory may even get the old inode number back) is watched again.
func TestRootRecreatedBeforeHandled(t *testing.T) {
	base := tempDir(t)
	root := filepath.Join(base, "cmds")
	mkdir(t, root)
	w, r := start(t, []string{root}, nil)

	whileBlocked(t, w,
		func() error { return os.Remove(root) },
		func() error { return os.Mkdir(root, 0o755) })
	r.waitSeen(root)
	r.reset()
	probe(t, r, root)
}

// TestAncestorRecreatedBeforeHandled: the directory watched for a missing root is deleted and
// created again before the watcher handles the deletion; its old watch died with it, so the root
// appearing in the new directory must still be seen.
func TestAncestorRecreatedBeforeHandled(t *testing.T) {
	base := tempDir(t)
	parent := filepath.Join(base, "project")
	mkdir(t, parent)
	root := filepath.Join(parent, "commands")
	w, r := start(t, []string{root}, nil)

	whileBlocked(t, w,
		func() error { return os.Remove(parent) },
		func() error { return os.Mkdir(parent, 0o755) })
	probe(t, r, sibling(t, w, base)) // the deletion has been handled
	f := filepath.Join(root, "a.md")
	write(t, f, "x")
	r.waitSeen(root, f)
}

// TestAncestorRenamedAwayAndBackBeforeHandled: as above, with the ancestor renamed away and back
// (same inode, but the rename removed its watch).
func TestAncestorRenamedAwayAndBackBeforeHandled(t *testing.T) {
	base := tempDir(t)
	parent := filepath.Join(base, "project")
	mkdir(t, parent)
	root := filepath.Join(parent, "commands")
	w, r := start(t, []string{root}, nil)

	aside := filepath.Join(base, "aside")
	whileBlocked(t, w,
		func() error { return os.Rename(parent, aside) },
		func() error { return os.Rename(aside, parent) })
	probe(t, r, sibling(t, w, base))
	f := filepath.Join(root, "a.md")
	write(t, f, "x")
	r.waitSeen(root, f)
}

// sibling adds an existing root next to base's contents so probe has a reported directory whose
// events are ordered after the ones under test.
func sibling(t *testing.T, w *Watcher, base string) string {
	t.Helper()
	s := filepath.Join(base, "sibling")
	mkdir(t, s)
	if err := w.Add(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestDirectoryMovedIntoNewDirectoryBeforeHandled: a watched directory moved into a directory
// created just before, both before the watcher handles either event. The walk of the new directory
// finds the moved one still recorded under its old path; it must be watched under its new path.
func TestDirectoryMovedIntoNewDirectoryBeforeHandled(t *testing.T) {
	root := tempDir(t)
	old := filepath.Join(root, "x")
	write(t, filepath.Join(old, "sub", "a.md"), "x")
	w, r := start(t, []string{root}, nil)

	z := filepath.Join(root, "z")
	moved := filepath.Join(z, "y")
	whileBlocked(t, w,
		func() error { return os.Mkdir(z, 0o755) },
		func() error { return os.Rename(old, moved) })
	r.waitSeen(old, z, moved, filepath.Join(moved, "sub", "a.md"))
	r.reset()
	probe(t, r, moved)
	probe(t, r, filepath.Join(moved, "sub"))
}

// whileBlocked runs ops while holding the watcher's lock, so its loop handles their events only
// after all of them are done: the order a loaded machine produces by chance.
func whileBlocked(t *testing.T, w *Watcher, ops ...func() error) {
	t.Helper()
	w.mu.Lock()
	var errs []error
	for _, op := range ops {
		errs = append(errs, op())
	}
	w.mu.Unlock()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}

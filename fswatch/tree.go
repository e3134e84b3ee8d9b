package fswatch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// addRootLocked registers root and watches it, or its nearest existing ancestor when it does not
// exist yet. report says whether the files found are recorded as changed. w.mu is held.
func (w *Watcher) addRootLocked(root string, report bool) error {
	abs, err := filepath.Abs(root)
	if err != nil {
		return fmt.Errorf("fswatch: root %q: %w", root, err)
	}
	if slices.Contains(w.roots, abs) {
		return nil
	}
	fi, err := os.Stat(abs)
	switch {
	case err == nil && !fi.IsDir():
		return fmt.Errorf("fswatch: root %s: not a directory", abs)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("fswatch: root %s: %w", abs, err)
	}
	w.roots = append(w.roots, abs)
	if err != nil { // does not exist yet
		w.resolvePendingLocked()
		return nil
	}
	w.activateLocked(abs, fi, report)
	return nil
}

// activateLocked starts watching an existing root directory.
func (w *Watcher) activateLocked(root string, fi fs.FileInfo, report bool) {
	id, _ := idOf(root, fi)
	w.active[root] = id
	if report {
		w.changed[root] = struct{}{}
	}
	w.addTreeLocked(root, fi, 0, report)
}

// addTreeLocked watches dir (at depth below its root) and the directories under it, following
// symlinks and skipping directories already watched under another path. The watch is added before
// the directory is listed, so an entry created in between is seen either way.
func (w *Watcher) addTreeLocked(dir string, fi fs.FileInfo, depth int, report bool) {
	id, hasID := idOf(dir, fi)
	if hasID {
		if seen, ok := w.ids[id]; ok && seen != dir {
			if w.stillAt(seen, id) {
				return // a cycle, or a second path to a directory already watched
			}
			// The directory moved here (or its inode number was reused) and the event that
			// tells is still queued: forget the stale path, whose watch is this directory's.
			w.dropDirsLocked(seen)
		}
	}
	root, _, _ := w.rootOf(dir)
	if w.opts.MaxDirs > 0 && w.rootDirs[root] >= w.opts.MaxDirs {
		if !w.full[root] {
			w.full[root] = true
			w.opts.Logger.Warn("fswatch: directory limit reached under this root; not watching more", "root", root, "limit", w.opts.MaxDirs, "path", dir)
		}
		return
	}
	if err := w.fsw.Add(dir); err != nil {
		w.opts.Logger.Warn("fswatch: cannot watch directory", "path", dir, "err", err)
		return
	}
	w.dirs[dir] = id
	w.rootDirs[root]++
	w.dirRoot[dir] = root
	if hasID {
		w.ids[id] = dir
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		w.opts.Logger.Warn("fswatch: cannot list directory", "path", dir, "err", err)
		return
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		isDir := e.IsDir()
		var sub fs.FileInfo
		if isDir || e.Type()&fs.ModeSymlink != 0 {
			if sub, err = os.Stat(p); err == nil {
				isDir = sub.IsDir()
			} else {
				isDir = false // vanished or a dangling link
			}
		}
		if isDir && w.opts.Skip(p) {
			continue
		}
		if report {
			w.changed[p] = struct{}{}
		}
		if isDir && depth+1 <= w.opts.MaxDepth {
			w.addTreeLocked(p, sub, depth+1, report)
		}
	}
}

// stillAt reports whether path still leads to the directory identified by id.
func (w *Watcher) stillAt(path string, id fileID) bool {
	fi, err := os.Stat(path)
	if err != nil || !fi.IsDir() {
		return false
	}
	now, ok := idOf(path, fi)
	return ok && now == id
}

// dropDirsLocked forgets every watched directory at or below path, which was removed or renamed.
// An active root among them is no longer watched, even if a directory with the same identity is
// back at its path by now (renamed away and back, or an inode number reused): it is reported and
// made pending, for resolvePendingLocked to watch again. Ancestor watches at or below path are
// forgotten too, for the same reason.
func (w *Watcher) dropDirsLocked(path string) {
	for d, id := range w.dirs {
		if !within(d, path) {
			continue
		}
		// The kernel drops the watch of a deleted directory by itself, but a directory renamed out
		// of the tree keeps its watch (and its subdirectories theirs): remove them explicitly.
		_ = w.fsw.Remove(d)
		delete(w.dirs, d)
		if r, ok := w.dirRoot[d]; ok {
			delete(w.dirRoot, d)
			if w.rootDirs[r]--; w.rootDirs[r] <= 0 {
				delete(w.rootDirs, r)
			}
			delete(w.full, r)
		}
		if w.ids[id] == d {
			delete(w.ids, id)
		}
		if _, ok := w.active[d]; ok {
			delete(w.active, d)
			w.changed[d] = struct{}{}
		}
	}
	for a := range w.ancestors {
		if within(a, path) {
			_ = w.fsw.Remove(a)
			delete(w.ancestors, a)
		}
	}
}

// checkRootsLocked notices active roots that were removed, renamed away or replaced, forgets
// their trees, reports them, and waits for them to appear again.
func (w *Watcher) checkRootsLocked() {
	lost := false
	for r, id := range w.active {
		fi, err := os.Stat(r)
		if err == nil && fi.IsDir() {
			if now, ok := idOf(r, fi); !ok || now == id {
				continue
			}
		}
		delete(w.active, r)
		w.dropDirsLocked(r)
		w.changed[r] = struct{}{}
		lost = true
	}
	if lost {
		w.resolvePendingLocked()
	}
}

// resolvePendingLocked activates roots that now exist and keeps a watch on the nearest existing
// ancestor of each root that does not, removing ancestor watches no longer needed.
func (w *Watcher) resolvePendingLocked() {
	// Each pass moves every ancestor watch closer to its root; re-checking after adding a watch
	// catches a directory created between the Stat and the watch.
	for range 64 {
		needed := make(map[string]struct{})
		for _, r := range w.roots {
			if _, ok := w.active[r]; ok {
				continue
			}
			fi, err := os.Stat(r)
			if err == nil && fi.IsDir() {
				w.activateLocked(r, fi, true)
				continue
			}
			needed[nearestExisting(filepath.Dir(r))] = struct{}{}
		}
		added := false
		for a := range needed {
			if _, ok := w.ancestors[a]; ok {
				continue
			}
			if err := w.fsw.Add(a); err != nil {
				if _, statErr := os.Stat(a); errors.Is(statErr, fs.ErrNotExist) {
					// Deleted between the Stat and the watch (a tree being removed bottom-up):
					// another pass watches a closer ancestor that still exists.
					added = true
					continue
				}
				w.opts.Logger.Warn("fswatch: cannot watch ancestor of missing root", "path", a, "err", err)
				continue
			}
			w.ancestors[a] = struct{}{}
			added = true
		}
		for a := range w.ancestors {
			if _, ok := needed[a]; ok {
				continue
			}
			delete(w.ancestors, a)
			if _, shared := w.dirs[a]; !shared {
				_ = w.fsw.Remove(a)
			}
		}
		if !added {
			return
		}
	}
}

// rescanLocked re-walks every active root after lost events, adding missing watches, and reports
// each root as changed.
func (w *Watcher) rescanLocked() {
	for r := range w.active {
		fi, err := os.Stat(r)
		if err != nil {
			continue // checkRootsLocked handles it
		}
		w.changed[r] = struct{}{}
		w.addTreeLocked(r, fi, 0, false)
	}
	w.checkRootsLocked()
	w.resolvePendingLocked()
}

// nearestExisting returns p or its closest ancestor that exists.
func nearestExisting(p string) string {
	for {
		if _, err := os.Stat(p); err == nil {
			return p
		}
		parent := filepath.Dir(p)
		if parent == p {
			return p
		}
		p = parent
	}
}

// Package fswatch is the hot-reload mechanism shared by packages skill and command: a recursive,
// debounced file-system watcher on fsnotify (RFC-0051 "Hot Reload"). Callers hand it folder roots
// and get one callback per burst of changes, with the sorted, de-duplicated paths that changed;
// they then re-scan what changed. It imports nothing of this module.
//
//	w, err := fswatch.New([]string{"./skills"}, nil, func(changed []string) {
//		rescan(changed) // runs on the watcher's goroutine, one call at a time
//	})
//	if err != nil {
//		return err // a root that exists but is not a folder
//	}
//	defer w.Close()
//
// The rules:
//
//   - A folder that appears is watched with its subtree, and every file in it is reported.
//     Paths are absolute, under the link's path where a symlinked folder was followed; a
//     folder is watched once (by device and inode); a removed folder is reported alone.
//   - Debounce is trailing edge: the callback fires once no event arrived for Options.Debounce
//     (default 500 ms). Metadata-only changes (chmod, touch) are ignored.
//   - Options.Skip (default DefaultSkip), Options.MaxDepth and Options.MaxDirs apply below each
//     root, never to a root itself. Past MaxDirs a root's further folders are not watched, with
//     one warning.
//   - A root that does not exist yet is reported, with its files, when it appears. On a kernel
//     queue overflow every root is walked again and reported as changed.
//   - Close waits for a running callback, so the callback must not call Close; it may call Add.
//     Add after Close wraps ErrClosed.
//
// Known limits: renaming a folder above an existing root, or re-pointing a symlinked root, is
// not noticed; both need a restart or Add of the new path. Rationale: docs/design/fswatch.md.
package fswatch

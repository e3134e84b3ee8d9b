// Package fswatch is the hot-reload mechanism shared by packages skill and command: a recursive,
// debounced file-system watcher built on fsnotify.
//
// It implements the "Watcher" of DESIGN.md (Skills) and RFC-0051 "Hot Reload" (filesystem watcher,
// 500 ms debounce): callers hand it directory roots and get one callback per burst of changes,
// carrying the sorted, de-duplicated list of paths that changed. Callers then re-scan what changed.
//
// fsnotify is not recursive, so the watcher adds one watch per directory, and when a directory
// appears (created, renamed or moved into a watched tree, or a symbolic link to a directory) it
// watches the new directory and its subtree and reports every file found in it — files written
// into a new directory before its watch existed are not lost.
//
// Decisions taken where the RFC and DESIGN.md are silent:
//
//   - Reported paths are absolute and clean, spelled in the tree's own namespace: a file reached
//     through a symlinked directory is reported under the link's path, not the target's.
//   - Debounce is trailing edge: the callback fires once no event arrived for Options.Debounce,
//     so a steady stream of events delays it. One callback carries every path seen since the last.
//   - Events that change only metadata (chmod, touch's attribute change) are ignored: they do not
//     change what a skill or command says.
//   - A removed or renamed-away directory is reported as its own path only; its former contents
//     are not listed (they can no longer be read, and callers re-scan by prefix).
//   - Symbolic links to directories are followed (inotify watches the target). A directory is
//     watched once, identified by (device, inode): a second path to the same directory (a link
//     cycle or two links to one target) is not watched again, so its events are reported under
//     the first path seen only.
//   - Options.Skip and Options.MaxDepth apply below each root, never to a root itself, so a root
//     such as ~/.claude/commands is watched although it lies under a dot-folder. Depth 0 is the
//     root; directories deeper than MaxDepth are not watched, the files directly in a directory at
//     MaxDepth are.
//   - Options.MaxDirs, when set, bounds the directories watched in each root's tree, in the
//     order they are reached (the root before what is below it): past it, directories there
//     are not watched, with one warning. A directory is counted under the innermost root
//     holding it.
//   - A root that does not exist yet is not an error: its nearest existing ancestor is watched
//     (events there are not reported) until the root appears; the root and the files found in it
//     are then reported. A root that is deleted or renamed away goes back to that state. A root
//     that exists but is not a directory is an error.
//   - When the kernel queue overflows (fsnotify.ErrEventOverflow) events are lost, so every root
//     is re-walked (watches added where missing) and each root path is reported as changed.
//   - The callback runs on the watcher's own goroutine, one call at a time. Close waits for a
//     running callback, so the callback must not call Close (that would deadlock); it may call Add.
//   - The package imports nothing of this module (DESIGN.md: fswatch → fsnotify only), so Add
//     after Close wraps fswatch's own ErrClosed, not ext.ErrClosed; callers map it if they pass
//     it on.
//
// Known limits: an existing root's ancestors are not watched, so renaming a folder above a root
// (mv project project2) is not noticed: the watches follow the moved inodes, and events keep
// being reported under the old path. Likewise a symlinked root whose link is re-pointed
// (ln -sfn) keeps watching the old target. Both need a restart (or Add of the new path).
package fswatch

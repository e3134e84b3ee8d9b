package fswatch

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Defaults applied by New to zero Options fields.
const (
	DefaultDebounce = 500 * time.Millisecond
	DefaultMaxDepth = 6
)

// ErrClosed reports a call to Add after Close. fswatch knows nothing of the domain (it imports
// no package of this module), so it has its own sentinel rather than ext.ErrClosed; a caller
// that passes the error on to users of a capability maps it to ext.ErrClosed.
var ErrClosed = errors.New("watcher closed")

// Options configures a Watcher. The zero value, or a nil *Options, means the defaults.
// New copies the options, so changing them afterwards has no effect.
type Options struct {
	// Debounce is how long the watcher waits after the last event before calling back
	// (trailing edge). Zero means DefaultDebounce.
	Debounce time.Duration
	// MaxDepth is how many directory levels below each root are watched. Zero means
	// DefaultMaxDepth; a negative value watches the roots only.
	MaxDepth int
	// Skip reports directories below a root that must not be watched. It is called with the
	// directory's absolute path. Nil means DefaultSkip.
	Skip func(path string) bool
	// Logger receives watch errors that do not stop the watcher. Nil discards them.
	Logger *slog.Logger
	// MaxDirs bounds how many directories are watched below each root, the root included
	// (each inotify watch is kernel memory, and the user's watches are limited): once a root
	// reached it, further directories in its tree are not watched, with one warning on Logger
	// until some are freed. One root's big tree does not use up another's. Zero means no limit.
	MaxDirs int
}

// DefaultSkip skips .git, node_modules and every other directory whose name starts with a dot.
func DefaultSkip(path string) bool {
	base := filepath.Base(path)
	return base == "node_modules" || strings.HasPrefix(base, ".")
}

// Watcher watches directory trees and reports debounced batches of changed paths.
// Its methods are safe for concurrent use.
type Watcher struct {
	opts     Options
	onChange func([]string)
	fsw      *fsnotify.Watcher
	events   <-chan fsnotify.Event // fsw's, or a test's
	errs     <-chan error          // fsw's, or a test's

	mu        sync.Mutex
	roots     []string            // every root, in the order given
	active    map[string]fileID   // roots that exist and are watched, with their identity
	dirs      map[string]fileID   // watched directories inside roots
	ids       map[fileID]string   // identity → the path it is watched under (cycle detection)
	ancestors map[string]struct{} // helper watches on the nearest existing ancestor of missing roots
	changed   map[string]struct{} // paths seen since the last callback
	rootDirs  map[string]int      // how many of dirs each active root's tree holds (MaxDirs)
	dirRoot   map[string]string   // the root each of dirs is counted under
	full      map[string]bool     // roots that reached MaxDirs, and said so
	closed    bool

	kick      chan struct{} // wakes the loop when Add found changes outside an event
	done      chan struct{}
	loopDone  chan struct{}
	closeOnce sync.Once
	closeErr  error
}

// New starts watching roots and calls onChange with the paths that changed after each burst of
// events (see Options.Debounce). Roots are made absolute; a root that does not exist yet is
// watched for (see the package doc). The returned Watcher owns a goroutine: call Close.
func New(roots []string, opts *Options, onChange func(changed []string)) (*Watcher, error) {
	if onChange == nil {
		return nil, errors.New("fswatch: onChange must not be nil")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Debounce <= 0 {
		o.Debounce = DefaultDebounce
	}
	if o.MaxDepth == 0 {
		o.MaxDepth = DefaultMaxDepth
	}
	if o.Skip == nil {
		o.Skip = DefaultSkip
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	fsw, err := fsnotify.NewBufferedWatcher(1024)
	if err != nil {
		return nil, fmt.Errorf("fswatch: %w", err)
	}
	return startWith(roots, o, onChange, fsw, fsw.Events, fsw.Errors)
}

// startWith is New with its fsnotify watcher made, and the events and errors its loop reads: fsw's,
// or a test's in a testing/synctest bubble (whose goroutines cannot wait on fsw's reads of the
// inotify descriptor). o has its defaults. On error it closes fsw.
func startWith(roots []string, o Options, onChange func([]string), fsw *fsnotify.Watcher, events <-chan fsnotify.Event, errs <-chan error) (*Watcher, error) {
	w := &Watcher{
		opts:      o,
		onChange:  onChange,
		fsw:       fsw,
		events:    events,
		errs:      errs,
		active:    make(map[string]fileID),
		dirs:      make(map[string]fileID),
		ids:       make(map[fileID]string),
		ancestors: make(map[string]struct{}),
		rootDirs:  make(map[string]int),
		dirRoot:   make(map[string]string),
		full:      make(map[string]bool),
		changed:   make(map[string]struct{}),
		kick:      make(chan struct{}, 1),
		done:      make(chan struct{}),
		loopDone:  make(chan struct{}),
	}
	w.mu.Lock()
	for _, r := range roots {
		if err := w.addRootLocked(r, false); err != nil {
			w.mu.Unlock()
			fsw.Close()
			return nil, err
		}
	}
	w.mu.Unlock()
	go w.loop()
	return w, nil
}

// Add watches one more root, as New does for its roots. Adding a root twice is a no-op.
// After Close it returns an error wrapping ErrClosed.
func (w *Watcher) Add(root string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return fmt.Errorf("fswatch: add %s: %w", root, ErrClosed)
	}
	n := len(w.changed)
	if err := w.addRootLocked(root, false); err != nil {
		return err
	}
	if len(w.changed) != n {
		w.wake()
	}
	return nil
}

// Close stops watching and waits for the watcher's goroutine to end: once Close returns, onChange
// is not called again. Close is idempotent and safe for concurrent use; it must not be called from
// onChange.
func (w *Watcher) Close() error {
	w.closeOnce.Do(func() {
		w.mu.Lock()
		w.closed = true
		w.mu.Unlock()
		close(w.done)
		<-w.loopDone
		w.closeErr = w.fsw.Close()
	})
	return w.closeErr
}

// Roots returns the roots being watched, absolute, in the order they were given.
func (w *Watcher) Roots() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.roots)
}

// Watched returns the directories watched inside the roots (each once, under the path it was
// first reached by), sorted; helper watches on ancestors of missing roots are not included. It
// lets callers and tests see what a Skip rule leaves out.
func (w *Watcher) Watched() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]string, 0, len(w.dirs))
	for d := range w.dirs {
		out = append(out, d)
	}
	slices.Sort(out)
	return out
}

func (w *Watcher) wake() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// loop owns the debounce timer and is the only caller of onChange.
func (w *Watcher) loop() {
	defer close(w.loopDone)
	timer := time.NewTimer(w.opts.Debounce)
	timer.Stop()
	for {
		select {
		case <-w.done:
			timer.Stop()
			return
		case ev, ok := <-w.events:
			if !ok {
				return
			}
			w.mu.Lock()
			n := len(w.changed)
			w.handle(ev)
			grew := len(w.changed) != n
			w.mu.Unlock()
			if grew {
				timer.Reset(w.opts.Debounce)
			}
		case err, ok := <-w.errs:
			if !ok {
				return
			}
			w.mu.Lock()
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.opts.Logger.Warn("fswatch: event queue overflow, re-scanning roots", "err", err)
				w.rescanLocked()
			} else {
				w.opts.Logger.Warn("fswatch: watch error", "err", err)
			}
			grew := len(w.changed) != 0
			w.mu.Unlock()
			if grew {
				timer.Reset(w.opts.Debounce)
			}
		case <-w.kick:
			timer.Reset(w.opts.Debounce)
		case <-timer.C:
			w.mu.Lock()
			batch := make([]string, 0, len(w.changed))
			for p := range w.changed {
				batch = append(batch, p)
			}
			clear(w.changed)
			w.mu.Unlock()
			if len(batch) == 0 {
				continue
			}
			slices.Sort(batch)
			w.onChange(batch)
		}
	}
}

// handle applies one fsnotify event to the watch state and records what changed. w.mu is held.
func (w *Watcher) handle(ev fsnotify.Event) {
	path := filepath.Clean(ev.Name)
	root, depth, inTree := w.rootOf(path)
	switch {
	case ev.Has(fsnotify.Create):
		if inTree {
			w.created(root, path, depth)
		}
	case ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename):
		w.dropDirsLocked(path)
		if inTree {
			w.changed[path] = struct{}{}
		}
		w.checkRootsLocked()
	case ev.Has(fsnotify.Write):
		if inTree {
			w.changed[path] = struct{}{}
		}
	default:
		// Chmod only: metadata, not content.
		return
	}
	if len(w.ancestors) > 0 || len(w.active) < len(w.roots) {
		w.resolvePendingLocked()
	}
}

// created handles a path that appeared inside root's tree at depth.
func (w *Watcher) created(root, path string, depth int) {
	fi, err := os.Stat(path) // follows symlinks: a link to a directory is a directory
	if err != nil || !fi.IsDir() {
		w.changed[path] = struct{}{}
		return
	}
	if depth > 0 && w.opts.Skip(path) {
		return
	}
	w.changed[path] = struct{}{}
	if depth <= w.opts.MaxDepth {
		w.addTreeLocked(path, fi, depth, true)
	}
}

// rootOf returns the active root whose tree holds path (the longest one) and path's depth below
// it: 0 for the root itself, 1 for its entries.
func (w *Watcher) rootOf(path string) (root string, depth int, ok bool) {
	for r := range w.active {
		if !within(path, r) || len(r) <= len(root) {
			continue
		}
		root, ok = r, true
	}
	if !ok {
		return "", 0, false
	}
	if path != root {
		depth = strings.Count(path[len(root):], string(filepath.Separator))
		if strings.HasSuffix(root, string(filepath.Separator)) {
			depth++
		}
	}
	return root, depth, true
}

// within reports whether path is dir or lies below it.
func within(path, dir string) bool {
	if path == dir {
		return true
	}
	if strings.HasSuffix(dir, string(filepath.Separator)) {
		return strings.HasPrefix(path, dir)
	}
	return strings.HasPrefix(path, dir+string(filepath.Separator))
}

package fswatch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/fsnotify/fsnotify"
	"go.uber.org/goleak"

	"github.com/agentpool/agentpool/internal/testwait"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const waitLimit = 20 * time.Second

// recorder collects callbacks and checks the batch invariants on each.
type recorder struct {
	t       *testing.T
	mu      sync.Mutex
	batches [][]string
	seen    map[string]int // path → number of batches holding it
}

func newRecorder(t *testing.T) *recorder { return &recorder{t: t, seen: map[string]int{}} }

func (r *recorder) onChange(changed []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !slices.IsSorted(changed) {
		r.t.Errorf("batch not sorted: %q", changed)
	}
	if len(slices.Compact(slices.Clone(changed))) != len(changed) {
		r.t.Errorf("batch has duplicates: %q", changed)
	}
	if len(changed) == 0 {
		r.t.Errorf("empty batch")
	}
	r.batches = append(r.batches, slices.Clone(changed))
	for _, p := range changed {
		r.seen[p]++
	}
}

// waitSeen waits until every path has been reported at least once since the last reset.
func (r *recorder) waitSeen(paths ...string) {
	r.t.Helper()
	var missing []string
	var got [][]string
	defer func() {
		if len(missing) > 0 {
			r.t.Logf("not reported: %q; batches: %q", missing, got)
		}
	}()
	testwait.Within(r.t, waitLimit, fmt.Sprintf("%q reported", paths), func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		missing = missing[:0]
		for _, p := range paths {
			if r.seen[p] == 0 {
				missing = append(missing, p)
			}
		}
		got = r.batches
		return len(missing) == 0
	})
}

func (r *recorder) count(p string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen[p]
}

func (r *recorder) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.batches = nil
	clear(r.seen)
}

func (r *recorder) nbatches() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.batches)
}

// tempDir returns a clean temp dir with symlinks resolved, so expected paths match reported ones.
func tempDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mkdir(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(path, 0o755); err != nil {
		t.Fatal(err)
	}
}

func start(t *testing.T, roots []string, opts *Options) (*Watcher, *recorder) {
	t.Helper()
	r := newRecorder(t)
	if opts == nil {
		opts = &Options{}
	}
	if opts.Debounce == 0 {
		opts.Debounce = 50 * time.Millisecond
	}
	w, err := New(roots, opts, r.onChange)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := w.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return w, r
}

// sync waits until the watcher demonstrably sees events in dir, by writing a probe file.
func probe(t *testing.T, r *recorder, dir string) {
	t.Helper()
	p := filepath.Join(dir, fmt.Sprintf("probe-%d", time.Now().UnixNano()))
	write(t, p, "x")
	r.waitSeen(p)
}

func TestCreateWriteRemove(t *testing.T) {
	root := tempDir(t)
	f := filepath.Join(root, "a.md")
	write(t, f, "one")
	_, r := start(t, []string{root}, nil)

	write(t, f, "two")
	r.waitSeen(f)
	r.reset()
	g := filepath.Join(root, "b.md")
	write(t, g, "new")
	r.waitSeen(g)
	r.reset()
	if err := os.Remove(f); err != nil {
		t.Fatal(err)
	}
	r.waitSeen(f)
}

func TestChmodIgnored(t *testing.T) {
	root := tempDir(t)
	f := filepath.Join(root, "a.md")
	write(t, f, "one")
	_, r := start(t, []string{root}, nil)
	if err := os.Chmod(f, 0o600); err != nil {
		t.Fatal(err)
	}
	probe(t, r, root) // events are ordered: once the probe is seen, the chmod was handled
	if n := r.count(f); n != 0 {
		t.Fatalf("chmod reported %d times", n)
	}
}

func TestNewDirectorySubtree(t *testing.T) {
	root := tempDir(t)
	_, r := start(t, []string{root}, nil)

	// mkdir -p and files written at once: the subtree is created before its watches exist.
	deep := filepath.Join(root, "a", "b", "c")
	f1 := filepath.Join(root, "a", "x.md")
	f2 := filepath.Join(deep, "y.md")
	write(t, f1, "1")
	write(t, f2, "2")
	r.waitSeen(filepath.Join(root, "a"), f1, f2)

	// The new directories are watched: later edits deep inside are seen.
	r.reset()
	f3 := filepath.Join(deep, "z.md")
	write(t, f3, "3")
	r.waitSeen(f3)
}

func TestRenameDirectoryIntoTree(t *testing.T) {
	outside := tempDir(t)
	root := tempDir(t)
	src := filepath.Join(outside, "pkg")
	write(t, filepath.Join(src, "sub", "cmd.md"), "x")
	_, r := start(t, []string{root}, nil)

	dst := filepath.Join(root, "pkg")
	if err := os.Rename(src, dst); err != nil {
		t.Fatal(err)
	}
	r.waitSeen(dst, filepath.Join(dst, "sub"), filepath.Join(dst, "sub", "cmd.md"))
	r.reset()
	f := filepath.Join(dst, "sub", "new.md")
	write(t, f, "y")
	r.waitSeen(f)
}

func TestRenameDirectoryOutOfTree(t *testing.T) {
	outside := tempDir(t)
	root := tempDir(t)
	write(t, filepath.Join(root, "pkg", "sub", "a.md"), "x")
	w, r := start(t, []string{root}, nil)

	moved := filepath.Join(outside, "pkg")
	if err := os.Rename(filepath.Join(root, "pkg"), moved); err != nil {
		t.Fatal(err)
	}
	r.waitSeen(filepath.Join(root, "pkg"))
	r.reset()
	// The moved tree keeps its inodes; its watches must be gone, not report stale paths.
	write(t, filepath.Join(moved, "sub", "b.md"), "y")
	write(t, filepath.Join(moved, "c.md"), "y")
	probe(t, r, root)
	r.mu.Lock()
	defer r.mu.Unlock()
	for p := range r.seen {
		if filepath.Dir(p) != root {
			t.Errorf("reported %s after its directory left the tree", p)
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if got := len(w.fsw.WatchList()); got != 1 {
		t.Errorf("watch list = %q, want the root only", w.fsw.WatchList())
	}
}

func TestRenameWithinTree(t *testing.T) {
	root := tempDir(t)
	write(t, filepath.Join(root, "old", "sub", "a.md"), "x")
	_, r := start(t, []string{root}, nil)
	if err := os.Rename(filepath.Join(root, "old"), filepath.Join(root, "new")); err != nil {
		t.Fatal(err)
	}
	r.waitSeen(filepath.Join(root, "old"), filepath.Join(root, "new"), filepath.Join(root, "new", "sub", "a.md"))
	r.reset()
	f := filepath.Join(root, "new", "sub", "b.md")
	write(t, f, "y")
	r.waitSeen(f)
}

func TestEditorStyleSave(t *testing.T) {
	root := tempDir(t)
	target := filepath.Join(root, "SKILL.md")
	write(t, target, "v1")
	_, r := start(t, []string{root}, nil)

	tmp := filepath.Join(root, ".SKILL.md.swp")
	write(t, tmp, "v2")
	if err := os.Rename(tmp, target); err != nil {
		t.Fatal(err)
	}
	r.waitSeen(target)
	b, err := os.ReadFile(target)
	if err != nil || string(b) != "v2" {
		t.Fatalf("content %q, %v", b, err)
	}
}

func TestDebounceCollapsesBurst(t *testing.T) {
	root := tempDir(t)
	f := filepath.Join(root, "SKILL.md")
	write(t, f, "v0")
	var last atomic.Value
	r := newRecorder(t)
	w, err := New([]string{root}, &Options{Debounce: 300 * time.Millisecond}, func(c []string) {
		if b, err := os.ReadFile(f); err == nil {
			last.Store(string(b))
		}
		r.onChange(c)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()

	const edits = 200
	for i := 1; i <= edits; i++ {
		write(t, f, fmt.Sprintf("v%d", i))
	}
	r.waitSeen(f)
	// The last write is followed by one more callback at most; wait until quiet.
	testwait.Within(t, waitLimit, "the final state seen by a callback", func() bool { return last.Load() == fmt.Sprintf("v%d", edits) })
	// 200 writes in a few milliseconds: a slow machine may split them, but never near 200.
	if n := r.nbatches(); n > 10 {
		t.Fatalf("%d callbacks for %d rapid writes", n, edits)
	}
}

func TestMissingRootAppearsLater(t *testing.T) {
	base := tempDir(t)
	root := filepath.Join(base, "project", ".claude", "commands")
	_, r := start(t, []string{root}, nil)

	// Events in the ancestor are not reported.
	other := filepath.Join(base, "unrelated.txt")
	write(t, other, "x")

	f := filepath.Join(root, "frontend", "component.md")
	write(t, f, "x") // mkdir -p of the whole chain, then a file
	r.waitSeen(root, f)
	if r.count(other) != 0 {
		t.Errorf("event outside the root reported: %s", other)
	}
	r.reset()
	g := filepath.Join(root, "frontend", "page.md")
	write(t, g, "y")
	r.waitSeen(g)

	// Deleted: reported, and watched for again.
	r.reset()
	if err := os.RemoveAll(filepath.Join(base, "project")); err != nil {
		t.Fatal(err)
	}
	r.waitSeen(root)
	r.reset()
	h := filepath.Join(root, "again.md")
	write(t, h, "z")
	r.waitSeen(root, h)
}

func TestRootRenamedAwayAndBack(t *testing.T) {
	base := tempDir(t)
	root := filepath.Join(base, "cmds")
	write(t, filepath.Join(root, "a.md"), "x")
	_, r := start(t, []string{root}, nil)
	aside := filepath.Join(base, "aside")
	if err := os.Rename(root, aside); err != nil {
		t.Fatal(err)
	}
	r.waitSeen(root)
	r.reset()
	write(t, filepath.Join(aside, "b.md"), "y") // not in the tree any more
	if err := os.Rename(aside, root); err != nil {
		t.Fatal(err)
	}
	r.waitSeen(root, filepath.Join(root, "a.md"), filepath.Join(root, "b.md"))
	if r.count(filepath.Join(aside, "b.md")) != 0 {
		t.Errorf("reported a path outside the root")
	}
}

func TestSymlinkedDirectoryFollowed(t *testing.T) {
	outside := tempDir(t)
	root := tempDir(t)
	target := filepath.Join(outside, "shared-skill")
	write(t, filepath.Join(target, "SKILL.md"), "x")
	link := filepath.Join(root, "linked")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	_, r := start(t, []string{root}, nil)

	write(t, filepath.Join(target, "SKILL.md"), "y")
	r.waitSeen(filepath.Join(link, "SKILL.md")) // under the link's path, not the target's

	// A symlink to a directory created later is followed too.
	r.reset()
	target2 := filepath.Join(outside, "other")
	write(t, filepath.Join(target2, "a.md"), "x")
	link2 := filepath.Join(root, "linked2")
	if err := os.Symlink(target2, link2); err != nil {
		t.Fatal(err)
	}
	r.waitSeen(link2, filepath.Join(link2, "a.md"))
	r.reset()
	write(t, filepath.Join(target2, "b.md"), "x")
	r.waitSeen(filepath.Join(link2, "b.md"))
}

func TestSymlinkCycle(t *testing.T) {
	root := tempDir(t)
	mkdir(t, filepath.Join(root, "a", "b"))
	// a/b/up → root and a/self → a: both cycles.
	if err := os.Symlink(root, filepath.Join(root, "a", "b", "up")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "a"), filepath.Join(root, "a", "self")); err != nil {
		t.Fatal(err)
	}
	w, r := start(t, []string{root}, &Options{MaxDepth: 50})
	w.mu.Lock()
	n := len(w.dirs)
	w.mu.Unlock()
	if n != 3 { // root, a, a/b
		t.Fatalf("watched %d directories, want 3: %v", n, w.fsw.WatchList())
	}
	f := filepath.Join(root, "a", "b", "c.md")
	write(t, f, "x")
	r.waitSeen(f)
}

func TestSkipAndMaxDepth(t *testing.T) {
	root := tempDir(t)
	for _, d := range []string{".git/objects", "node_modules/x", ".hidden", "d1/d2/d3"} {
		mkdir(t, filepath.Join(root, d))
	}
	_, r := start(t, []string{root}, &Options{MaxDepth: 2})
	skipped := []string{
		filepath.Join(root, ".git", "objects", "o"),
		filepath.Join(root, "node_modules", "x", "index.js"),
		filepath.Join(root, ".hidden", "h.md"),
		filepath.Join(root, "d1", "d2", "d3", "too-deep.md"),
	}
	for _, p := range skipped {
		write(t, p, "x")
	}
	atMax := filepath.Join(root, "d1", "d2", "ok.md")
	write(t, atMax, "x")
	r.waitSeen(atMax)
	probe(t, r, root)
	for _, p := range skipped {
		if r.count(p) != 0 {
			t.Errorf("reported %s", p)
		}
	}
	// A new skipped directory is neither reported nor watched.
	r.reset()
	write(t, filepath.Join(root, ".cache", "c"), "x")
	probe(t, r, root)
	if r.count(filepath.Join(root, ".cache")) != 0 || r.count(filepath.Join(root, ".cache", "c")) != 0 {
		t.Errorf("reported a new dot-folder")
	}
}

func TestRootUnderDotFolderIsWatched(t *testing.T) {
	base := tempDir(t)
	root := filepath.Join(base, ".claude")
	mkdir(t, root)
	_, r := start(t, []string{root}, nil)
	f := filepath.Join(root, "x.md")
	write(t, f, "x")
	r.waitSeen(f)
}

func TestAddRootLater(t *testing.T) {
	a, b := tempDir(t), tempDir(t)
	w, r := start(t, []string{a}, nil)
	if err := w.Add(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Add(b); err != nil { // no-op
		t.Fatal(err)
	}
	if got := w.Roots(); !slices.Equal(got, []string{a, b}) {
		t.Fatalf("Roots = %q", got)
	}
	f := filepath.Join(b, "x.md")
	write(t, f, "x")
	r.waitSeen(f)
}

func TestRootNotADirectory(t *testing.T) {
	f := filepath.Join(tempDir(t), "file")
	write(t, f, "x")
	if w, err := New([]string{f}, nil, func([]string) {}); err == nil {
		w.Close()
		t.Fatal("New accepted a file as root")
	}
	if _, err := New(nil, nil, nil); err == nil {
		t.Fatal("New accepted a nil callback")
	}
}

// TestCloseStopsCallbacks: a callback pending at Close (its debounce running) never runs, on
// a synctest bubble's clock long past it; Close is idempotent, Add after it ErrClosed.
func TestCloseStopsCallbacks(t *testing.T) {
	root := tempDir(t)
	fsw := newFSW(t)
	synctest.Test(t, func(t *testing.T) {
		var closed, late atomic.Bool
		var calls atomic.Int32
		w, events := bubbleWatcher(t, fsw, root, func([]string) {
			calls.Add(1)
			if closed.Load() {
				late.Store(true)
			}
		})
		events <- fsnotify.Event{Name: filepath.Join(root, "a"), Op: fsnotify.Write}
		advance(DefaultDebounce - time.Millisecond) // the callback is pending
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		closed.Store(true)
		if err := w.Close(); err != nil { // idempotent
			t.Fatal(err)
		}
		advance(time.Hour)
		if late.Load() || calls.Load() != 0 {
			t.Fatal("callback ran after Close returned")
		}
		if err := w.Add(tempDir(t)); !errors.Is(err, ErrClosed) {
			t.Fatalf("Add after Close: %v", err)
		}
	})
}

func TestConcurrentCloseAndAdd(t *testing.T) {
	root := tempDir(t)
	w, err := New([]string{root}, nil, func([]string) {})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			_ = w.Add(filepath.Join(root, fmt.Sprint("r", i)))
			_ = w.Close()
		})
	}
	wg.Wait()
}

func TestSiblingWithRootPrefixNotReported(t *testing.T) {
	base := tempDir(t)
	root := filepath.Join(base, "cmds")
	evil := filepath.Join(base, "cmds-evil")
	missing := filepath.Join(base, "later")
	mkdir(t, root)
	mkdir(t, evil)
	_, r := start(t, []string{root, missing}, nil) // "later" makes base an ancestor watch
	write(t, filepath.Join(evil, "x.md"), "x")
	write(t, filepath.Join(base, "later-evil", "y.md"), "y")
	probe(t, r, root)
	r.mu.Lock()
	defer r.mu.Unlock()
	for p := range r.seen {
		if !within(p, root) {
			t.Errorf("reported %s outside the roots", p)
		}
	}
}

func TestWithin(t *testing.T) {
	for _, tt := range []struct {
		path, dir string
		want      bool
	}{
		{"/a/b", "/a/b", true},
		{"/a/b/c", "/a/b", true},
		{"/a/b-evil", "/a/b", false},
		{"/a/bc", "/a/b", false},
		{"/a", "/", true},
		{"/", "/", true},
	} {
		if got := within(tt.path, tt.dir); got != tt.want {
			t.Errorf("within(%q, %q) = %v", tt.path, tt.dir, got)
		}
	}
}

// TestRescanAfterLostEvents exercises the overflow path: a directory whose watch was lost (as
// when the kernel queue overflows) is watched again and the root is reported.
func TestRescanAfterLostEvents(t *testing.T) {
	root := tempDir(t)
	sub := filepath.Join(root, "sub")
	mkdir(t, sub)
	w, r := start(t, []string{root}, nil)

	w.mu.Lock()
	if err := w.fsw.Remove(sub); err != nil {
		w.mu.Unlock()
		t.Fatal(err)
	}
	w.mu.Unlock()
	lost := filepath.Join(sub, "lost.md")
	write(t, lost, "x")
	probe(t, r, root)
	if r.count(lost) != 0 {
		t.Fatal("event arrived although the watch was removed")
	}

	w.mu.Lock()
	w.rescanLocked()
	w.mu.Unlock()
	w.wake()
	r.waitSeen(root)
	r.reset()
	again := filepath.Join(sub, "again.md")
	write(t, again, "y")
	r.waitSeen(again)
}

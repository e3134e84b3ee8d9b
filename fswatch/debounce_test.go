package fswatch

import (
	"log/slog"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/fsnotify/fsnotify"
)

// advance moves a synctest bubble's fake clock on by d, at once, and returns when every
// goroutine of the bubble is blocked again.
func advance(d time.Duration) {
	time.Sleep(d) // in a bubble: no real wait
	synctest.Wait()
}

// bubbleWatcher starts a Watcher of root at the default debounce whose loop reads events from
// the channel returned rather than from inotify: a synctest bubble cannot wait on the inotify
// descriptor, so the fsnotify watcher, made outside the bubble by newFSW, only holds the
// watches. It must be called in the bubble.
func bubbleWatcher(t *testing.T, fsw *fsnotify.Watcher, root string, onChange func([]string)) (*Watcher, chan<- fsnotify.Event) {
	t.Helper()
	events := make(chan fsnotify.Event, 64)
	o := Options{Debounce: DefaultDebounce, MaxDepth: DefaultMaxDepth, Skip: DefaultSkip, Logger: slog.New(slog.DiscardHandler)}
	w, err := startWith([]string{root}, o, onChange, fsw, events, make(chan error))
	if err != nil {
		t.Fatal(err)
	}
	return w, events
}

func newFSW(t *testing.T) *fsnotify.Watcher {
	fsw, err := fsnotify.NewBufferedWatcher(1024)
	if err != nil {
		t.Fatal(err)
	}
	return fsw
}

// TestDebounceTrailingEdge: on a synctest bubble's clock, with the default debounce (500 ms),
// a burst of events is one callback, Debounce after the burst's last event that changed
// something, holding every path of the burst; a later event starts a new batch.
func TestDebounceTrailingEdge(t *testing.T) {
	root := tempDir(t)
	fsw := newFSW(t)
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		type call struct {
			at    time.Duration
			paths []string
		}
		var calls []call
		begin := time.Now()
		w, events := bubbleWatcher(t, fsw, root, func(paths []string) {
			mu.Lock()
			defer mu.Unlock()
			calls = append(calls, call{time.Since(begin), paths})
		})
		defer w.Close()
		got := func() []call {
			mu.Lock()
			defer mu.Unlock()
			return slices.Clone(calls)
		}
		a, b, c := filepath.Join(root, "a"), filepath.Join(root, "b"), filepath.Join(root, "c")

		events <- fsnotify.Event{Name: a, Op: fsnotify.Write}
		advance(400 * time.Millisecond)
		events <- fsnotify.Event{Name: b, Op: fsnotify.Write}
		events <- fsnotify.Event{Name: b, Op: fsnotify.Chmod} // metadata only: no change, no new wait
		advance(DefaultDebounce - time.Millisecond)
		if n := len(got()); n != 0 {
			t.Fatalf("%d callbacks within Debounce of the burst's last change", n)
		}
		advance(time.Millisecond)
		want := []call{{400*time.Millisecond + DefaultDebounce, []string{a, b}}}
		if cs := got(); len(cs) != 1 || cs[0].at != want[0].at || !slices.Equal(cs[0].paths, want[0].paths) {
			t.Fatalf("callbacks %v, want %v", cs, want)
		}
		events <- fsnotify.Event{Name: c, Op: fsnotify.Write}
		advance(DefaultDebounce)
		if cs := got(); len(cs) != 2 || !slices.Equal(cs[1].paths, []string{c}) {
			t.Fatalf("callbacks %v, want a second one of c alone", cs)
		}
	})
}

package plugin

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/renameio"
)

// A reader of the state file, which takes no lock, sees the whole old state or the whole new
// one while SetEnabled replaces it, never part of either.
func TestSetEnabledReplacesAtomically(t *testing.T) {
	path := StatePath(filepath.Join(t.TempDir(), "cfg"))
	if err := SetEnabled(path, "first", true); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 50 {
			if err := SetEnabled(path, fmt.Sprintf("plugin-with-a-long-name-%d", i), true); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for reads := 0; ; reads++ {
		select {
		case <-done:
			if dir, err := os.Stat(filepath.Dir(path)); err != nil {
				t.Error(err)
			} else if m := dir.Mode().Perm(); m != 0o700 {
				t.Errorf("folder made with mode %v, want 0700", m)
			}
			return
		default:
		}
		st, err := LoadState(path)
		if err != nil {
			t.Fatalf("read %d while SetEnabled replaces the file: %v", reads, err)
		}
		if !st.Enabled["first"] {
			t.Fatalf("read %d: %v lacks the first choice", reads, st.Enabled)
		}
	}
}

func TestStateMissingIsZero(t *testing.T) {
	st, err := LoadState(filepath.Join(t.TempDir(), "nope.json"))
	if err != nil || st.Enabled != nil {
		t.Fatalf("LoadState(missing) = %v, %v; want zero, nil", st, err)
	}
	if got := StatePath("/cfg/agentpool"); got != filepath.Join("/cfg", "agentpool", "plugins.json") {
		t.Errorf("StatePath = %s", got)
	}
}

func TestSetEnabledConcurrent(t *testing.T) {
	path := StatePath(t.TempDir())
	const n = 24
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if err := SetEnabled(path, fmt.Sprintf("p%d", i), i%2 == 0); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	st, err := LoadState(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Enabled) != n {
		t.Fatalf("%d choices kept, want %d: %v", len(st.Enabled), n, st.Enabled)
	}
	for i := range n {
		if on, ok := st.Enabled[fmt.Sprintf("p%d", i)]; !ok || on != (i%2 == 0) {
			t.Errorf("p%d = %v, %v", i, on, ok)
		}
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if m := info.Mode().Perm(); m != 0o600 {
		t.Errorf("mode %v, want 0600", m)
	}
	if left, _ := filepath.Glob(renameio.Pattern(path)); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	if err := SetEnabled(path, "p0", false); err != nil {
		t.Fatal(err)
	}
	if st, _ := LoadState(path); st.Enabled["p0"] {
		t.Error("p0 still on after SetEnabled(false)")
	}
}

func TestStateCorrupt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plugins.json")
	if err := os.WriteFile(path, []byte(`{"enabled": [`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := LoadState(path)
	if !errors.Is(err, ErrCorruptState) || !strings.Contains(err.Error(), path) {
		t.Fatalf("LoadState(corrupt) = %v; want ErrCorruptState naming %s", err, path)
	}
	if err := SetEnabled(path, "x", true); !errors.Is(err, ErrCorruptState) {
		t.Errorf("SetEnabled over a corrupt file = %v; want ErrCorruptState (nothing overwritten)", err)
	}
	if err := SetEnabled(path, "Bad.Name", true); err == nil {
		t.Error("SetEnabled accepted an invalid name")
	}
}

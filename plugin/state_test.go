package plugin

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

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

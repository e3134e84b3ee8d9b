package gateway_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/agentpool/agentpool/gateway"
	"github.com/agentpool/agentpool/internal/testwait"
)

// TestOneListChangedPerChangeWhenApplyIsSlow: an update that adds several prompts and
// resources is one prompts/list_changed and one resources/list_changed even when its adds
// are further apart than the go-sdk's debounce (10 ms), as they can be on a loaded machine.
func TestOneListChangedPerChangeWhenApplyIsSlow(t *testing.T) {
	// Restored after the fixture's cleanup (cleanups run last first): no apply runs then.
	t.Cleanup(gateway.SetChangeHook(func() { time.Sleep(25 * time.Millisecond) })) // a slow apply, on purpose
	f := newFixture(t, nil)
	cs, n := connect(t, f.url, nil)
	// Three skills made aside and moved in together: one debounced change.
	aside := t.TempDir()
	names := []string{"one", "two", "three"}
	for _, name := range names {
		writeSkill(t, aside, name, "Do "+name+".")
	}
	for _, name := range names {
		if err := os.Rename(filepath.Join(aside, name), filepath.Join(f.skills, name)); err != nil {
			t.Fatal(err)
		}
	}
	testwait.For(t, "the three prompts", func() bool {
		res, err := cs.ListPrompts(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		k := 0
		for _, p := range res.Prompts {
			if slices.Contains(names, p.Name) {
				k++
			}
		}
		return k == len(names)
	})
	settle()
	if p, r := n.prompts.Load(), n.resources.Load(); p != 1 || r != 1 {
		t.Errorf("got %d prompts/list_changed and %d resources/list_changed, want one each", p, r)
	}
}

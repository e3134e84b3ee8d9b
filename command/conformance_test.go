package command

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/ext/exttest"
)

func TestFileSourceConformance(t *testing.T) {
	root := tempDir(t)
	writeFile(t, filepath.Join(root, "review.md"), "---\ndescription: Review the diff\n---\nReview $ARGUMENTS\n")
	writeFile(t, filepath.Join(root, "frontend", "component.md"), "Build a component\n")
	for _, watch := range []bool{false, true} {
		name := "Static"
		if watch {
			name = "Watch"
		}
		t.Run(name, func(t *testing.T) {
			exttest.TestCapability(t, func(t *testing.T) ext.Capability {
				return newSource(t, []string{root, filepath.Join(tempDir(t), "missing")}, &FileOptions{Watch: watch, Debounce: 10 * time.Millisecond})
			}, &exttest.Options{
				Command: &ext.CommandRequest{Name: "file:frontend:component", Args: []string{"x"}},
			})
		})
	}
}

// Reload is outside the ext interfaces, so exttest does not call it; after Close it must
// still fail with ErrClosed rather than rescan.
func TestFileSourceReloadAfterClose(t *testing.T) {
	root := tempDir(t)
	s := newSource(t, []string{root}, nil)
	if err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "late.md"), "Late\n")
	if err := s.Reload(context.Background()); !errors.Is(err, ext.ErrClosed) {
		t.Errorf("Reload after Close = %v, want an error wrapping ext.ErrClosed", err)
	}
	if _, ok := s.Command("late"); ok {
		t.Error("Reload after Close rescanned the roots")
	}
}

//go:build unix

package ext

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/regfile"
)

// TestOpenConfinedSpecialFiles: a named pipe inside the root (a cloned skill can hold one) is
// refused at once, not opened: an open of it blocks until a writer comes, and nothing (no
// context, no signal) ends that wait. A folder is not found, as before.
func TestOpenConfinedSpecialFiles(t *testing.T) {
	root := t.TempDir()
	fifo := filepath.Join(root, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // release a blocked open, should there be one, so the test ends
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	})
	if err := os.Mkdir(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		f, err := OpenConfined(root, "pipe")
		if err == nil {
			f.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, regfile.ErrNotRegular) || !strings.Contains(err.Error(), "is a named pipe, not a regular file") {
			t.Errorf("OpenConfined(pipe) = %v, want a named pipe refused", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("OpenConfined blocked on a named pipe")
	}
	if _, err := OpenConfined(root, "sub"); !errors.Is(err, ErrNotFound) {
		t.Errorf("OpenConfined(folder) = %v, want ErrNotFound", err)
	}
}

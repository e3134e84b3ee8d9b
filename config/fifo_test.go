//go:build unix

package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentpool/agentpool/internal/regfile"
)

// TestLoadNamedPipe: a named pipe as the config file is refused at once; opening it the usual
// way would block until a writer comes, and signals would not end the wait.
func TestLoadNamedPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "agentpool.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // release a blocked open, should there be one, so the test ends
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	})
	within(t, func() {
		_, err := Load(fifo)
		if !errors.Is(err, regfile.ErrNotRegular) || !strings.Contains(err.Error(), fifo+": is a named pipe, not a regular file") {
			t.Errorf("Load(fifo) = %v, want a named pipe refused", err)
		}
	})
}

//go:build unix

package command

import (
	"context"
	"github.com/agentpool/agentpool/ext"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestGetCommandRefusesSpecialFile: a command file replaced after the scan by a named pipe (or a
// device such as /dev/zero, through a symlink) must be refused, not read without end.
func TestGetCommandRefusesSpecialFile(t *testing.T) {
	root := tempDir(t)
	p := filepath.Join(root, "c.md")
	writeFile(t, p, "body")
	s := newSource(t, []string{root}, nil)
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := s.GetCommand(context.Background(), &ext.CommandRequest{Name: "c", Args: nil})
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("GetCommand read a named pipe")
		}
	case <-time.After(20 * time.Second):
		t.Error("GetCommand blocked on a named pipe")
		// Release the reader so the goroutine ends.
		if w, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		<-done
	}
}

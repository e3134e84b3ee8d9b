//go:build unix

package command

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadCommandSwappedForPipe: the scan stats a command file and then reads it; a file
// swapped for a named pipe in between must be refused on the opened descriptor, not block the
// scan until a writer comes. readCommand is given the regular file's stat, as the scan would.
func TestReadCommandSwappedForPipe(t *testing.T) {
	root := tempDir(t)
	p := filepath.Join(root, "c.md")
	writeFile(t, p, "body")
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // release a blocked open, should there be one, so the test ends
		if w, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	})
	done := make(chan []Diagnostic, 1)
	go func() {
		_, diags := readCommand(&scanFS{}, root, p, p, []string{"c"}, fi)
		done <- diags
	}()
	select {
	case diags := <-done:
		if len(diags) != 1 || diags[0].Severity != SeverityError || !strings.Contains(diags[0].Message, "is a named pipe, not a regular file") {
			t.Errorf("diagnostics %v, want one error saying the file is a named pipe", diags)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("readCommand blocked on a named pipe")
	}
}

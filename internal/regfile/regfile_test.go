//go:build unix

package regfile

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// within runs f and fails the test when it has not returned after a generous time: a named
// pipe opened without O_NONBLOCK blocks until a writer comes, forever in a test. release
// unblocks such an open so that the goroutine ends.
func within(t *testing.T, release func(), f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		release()
		<-done
		t.Fatal("blocked on a special file")
	}
}

// openWriter opens fifo for writing without blocking, which releases a blocked reader's open.
func openWriter(fifo string) func() {
	return func() {
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	}
}

func TestRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	cases := map[string]string{
		fifo:        "is a named pipe, not a regular file",
		"/dev/zero": "is a character device, not a regular file",
		"/dev/null": "is a character device, not a regular file",
		dir:         "is a directory, not a regular file",
		sock:        "is a socket, not a regular file",
	}
	for path, want := range cases {
		within(t, openWriter(fifo), func() {
			_, err := ReadFile(path, 1<<20)
			if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), path+": "+want) {
				t.Errorf("ReadFile(%s) = %v, want ErrNotRegular naming the path and %q", path, err, want)
			}
		})
		within(t, openWriter(fifo), func() {
			root, err := os.OpenRoot(filepath.Dir(path))
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			if _, err := OpenIn(root, filepath.Base(path)); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), want) {
				t.Errorf("OpenIn(%s) = %v, want ErrNotRegular %q", path, err, want)
			}
		})
	}
	// A symlink to a special file is what it points to.
	link := filepath.Join(dir, "link")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(link, 1<<20); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadFile(link to /dev/zero) = %v, want ErrNotRegular", err)
	}
}

// TestCheckedOnDescriptor: the check that counts is the one on the opened descriptor. A path
// that is a regular file when stat'ed and a named pipe when opened must neither block nor be
// read. checked is what Open runs on the descriptor it opened, here opened as Open would.
func TestCheckedOnDescriptor(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	within(t, openWriter(fifo), func() {
		f, err := os.OpenFile(fifo, os.O_RDONLY|openFlags, 0)
		if err != nil {
			t.Fatalf("non-blocking open of a named pipe: %v", err)
		}
		if _, err := checked(f, fifo); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("checked(pipe) = %v, want ErrNotRegular", err)
		}
	})
}

func TestSizeCap(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte(strings.Repeat("x", 2048)), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFile(path, 2048); err != nil || len(data) != 2048 {
		t.Errorf("ReadFile at the cap = %d bytes, %v", len(data), err)
	}
	_, err := ReadFile(path, 1024)
	if !errors.Is(err, ErrTooLarge) || err.Error() != "read "+path+": larger than the 1 KiB cap" {
		t.Errorf("ReadFile over the cap = %v", err)
	}
	// A file that grows after its fstat is still cut at the cap.
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := os.WriteFile(path, []byte(strings.Repeat("y", 4096)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(f, 3000); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Read of a file grown past the cap = %v", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing"), 10); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{1 << 20: "1 MiB", 64 << 10: "64 KiB", 1500: "1500 bytes", 3 << 20: "3 MiB"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}

package lockedfile

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Changes under Lock from many goroutines at once (each its own descriptor, as processes
// have) lose none, and the file written is 0600 in a 0700 folder.
func TestLockedChangesKeepEveryOne(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "counter")
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			unlock, err := Lock(path)
			if err != nil {
				t.Error(err)
				return
			}
			defer unlock()
			data, err := os.ReadFile(path)
			if err != nil && !os.IsNotExist(err) {
				t.Error(err)
				return
			}
			n, _ := strconv.Atoi(strings.TrimSpace(string(data)))
			if err := Write(path, []byte(strconv.Itoa(n+1))); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	data, err := os.ReadFile(path)
	if err != nil || strings.TrimSpace(string(data)) != "20" {
		t.Fatalf("counter %q, %v: want 20", data, err)
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v, %v: want 0600", info.Mode().Perm(), err)
	}
	dir, err := os.Stat(filepath.Dir(path))
	if err != nil || dir.Mode().Perm() != 0o700 {
		t.Errorf("folder mode %v, %v: want 0700", dir.Mode().Perm(), err)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".counter-*"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

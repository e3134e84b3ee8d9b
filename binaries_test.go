package agentpool_test

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestNoBuildOutputTracked: no compiled binary is committed (a `go build` in cmd/agentpool
// writes one there).
func TestNoBuildOutputTracked(t *testing.T) {
	out, err := exec.Command("git", "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("git ls-files: %v", err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		f, err := os.Open(name)
		if err != nil {
			continue
		}
		head := make([]byte, 4)
		n, _ := f.Read(head)
		f.Close()
		if bytes.HasPrefix(head[:n], []byte("\x7fELF")) {
			t.Errorf("%s is a compiled binary; it is build output, not source", name)
		}
	}
}

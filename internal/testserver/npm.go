package testserver

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// NPMBin returns the path of the command name that `make test` installs from npm into
// testdata/npm (npm ci), such as "mcp-server-everything" or "conformance". A missing command,
// or a missing node, fails t with how to install it: a test that needs one never passes
// without it.
func NPMBin(t testing.TB, name string) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("testserver: cannot locate the repository")
	}
	p := filepath.Join(filepath.Dir(file), "..", "..", "testdata", "npm", "node_modules", ".bin", name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s is not installed (%v): run make test, which runs npm ci in testdata/npm", name, err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node not found: %s needs Node 20: %v", name, err)
	}
	return p
}

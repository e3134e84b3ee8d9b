package testserver

import (
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	driftOnce sync.Once
	driftPath string
	driftErr  string
)

// BuildDrift compiles the driftserver binary (cmd/driftserver: tools whose definitions change
// on command) once per test process, beside the faultserver's, and returns its path. A build
// failure fails t. It is safe for concurrent use.
func BuildDrift(t testing.TB) string {
	t.Helper()
	dir := filepath.Dir(Build(t))
	driftOnce.Do(func() {
		path := filepath.Join(dir, "driftserver")
		cmd := exec.Command("go", "build", "-o", path, "github.com/agentpool/agentpool/internal/testserver/cmd/driftserver")
		if out, err := cmd.CombinedOutput(); err != nil {
			driftErr = "driftserver: go build: " + err.Error() + "\n" + string(out)
			return
		}
		driftPath = path
	})
	if driftErr != "" {
		t.Fatal(driftErr)
	}
	return driftPath
}

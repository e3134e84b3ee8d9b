// Package testserver builds the faultserver binary (cmd/faultserver), a Go MCP
// server for fault-injection tests: tools that crash, sleep, count their
// executions and keep per-process state, and flags that make the process
// ignore SIGTERM, exit at start or never answer initialize. See the command's
// doc comment for the full list of tools and flags.
package testserver

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	buildOnce sync.Once
	buildPath string
	buildErr  string
)

// Build compiles the faultserver binary once per test process and returns its
// path. The binary lives in a temporary directory kept for the life of the
// process (tests in the same binary share it). A build failure fails t.
// Build is safe for concurrent use.
func Build(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "faultserver-")
		if err != nil {
			buildErr = "faultserver: temp dir: " + err.Error()
			return
		}
		path := filepath.Join(dir, "faultserver")
		cmd := exec.Command("go", "build", "-o", path, "github.com/agentpool/agentpool/internal/testserver/cmd/faultserver")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = "faultserver: go build: " + err.Error() + "\n" + string(out)
			return
		}
		buildPath = path
	})
	if buildErr != "" {
		t.Fatal(buildErr)
	}
	return buildPath
}

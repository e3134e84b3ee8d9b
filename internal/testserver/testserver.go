// Package testserver builds the faultserver binary (cmd/faultserver), a Go MCP
// server for fault-injection tests: tools that crash, sleep, count their
// executions and keep per-process state, and flags that make the process
// ignore SIGTERM, exit at start or never answer initialize. See the command's
// doc comment for the full list of tools and flags.
package testserver

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

var (
	buildOnce sync.Once
	buildPath string
	buildErr  string
)

// dirPrefix starts the name of each build directory, followed by the pid of the
// test process that owns it: "faultserver-<pid>-<random>".
const dirPrefix = "faultserver-"

// Build compiles the faultserver binary once per test process and returns its
// path. The binary lives in a temporary directory kept for the life of the
// process (tests in the same binary share it); no hook runs when a test
// process exits, so each Build first removes the directories of test
// processes that are gone. A build failure fails t. Build is safe for
// concurrent use.
func Build(t testing.TB) string {
	t.Helper()
	path, err := build()
	if err != "" {
		t.Fatal(err)
	}
	return path
}

// build is Build for callers without a testing.TB: the path, or what went wrong.
func build() (string, string) {
	buildOnce.Do(func() {
		sweepStale(os.TempDir())
		dir, err := os.MkdirTemp("", fmt.Sprintf("%s%d-", dirPrefix, os.Getpid()))
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
	return buildPath, buildErr
}

// sweepStale removes the build directories under tmp whose owning process no
// longer exists. A directory whose pid is alive (or was reused) is kept.
func sweepStale(tmp string) {
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), dirPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		pidStr, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidStr)
		if !ok || err != nil || pid <= 0 {
			continue
		}
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			_ = os.RemoveAll(filepath.Join(tmp, e.Name()))
		}
	}
}

// Package testserver runs the faultserver (package faultserver), a Go MCP server for
// fault-injection tests: tools that crash, sleep, count their executions and keep per-process
// state, and flags that make the process ignore SIGTERM, exit at start or never answer
// initialize. See package faultserver for the full list of tools and flags.
//
// The server is the test binary itself, re-executed: Path returns the path of a symlink named
// "faultserver" to the running test binary, and RunIfServer, called first in TestMain, turns a
// process started through that name into the server. The name, not an environment variable,
// tells the process what it is, because agentpool starts servers with an environment of its
// own making. Usage:
//
//	func TestMain(m *testing.M) {
//		testserver.RunIfServer()
//		goleak.VerifyTestMain(m)
//	}
//
//	cfg := connpool.ServerConfig{Command: testserver.Path(t), Args: []string{"--log", log}}
package testserver

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/agentpool/agentpool/internal/testserver/faultserver"
)

// name is the file name Path gives the test binary and RunIfServer recognises.
const name = "faultserver"

// dirPrefix starts the name of each link directory, followed by the pid of the test process
// that owns it: "faultserver-<pid>-<random>".
const dirPrefix = name + "-"

var (
	hooked   atomic.Bool // RunIfServer ran in this process
	linkOnce sync.Once
	linkPath string
	linkErr  string
)

// RunIfServer runs the faultserver and exits the process when the process was started through
// Path; otherwise it returns at once. Every test package that calls Path must call RunIfServer
// first thing in its TestMain, before anything else runs.
func RunIfServer() {
	hooked.Store(true)
	if filepath.Base(os.Args[0]) != name {
		return
	}
	faultserver.Main()
	os.Exit(0)
}

// Path returns the path of the faultserver for this test process: a symlink named
// "faultserver" to the running test binary, in a temporary directory made once per process and
// kept for its life (tests in the same binary share it). No hook runs when a test process
// exits, so the first Path removes the directories of test processes that are gone. Path
// fails t when the package's TestMain does not call RunIfServer (the link would run the tests
// again instead of the server) or the link cannot be made. Path is safe for concurrent use.
func Path(t testing.TB) string {
	t.Helper()
	if !hooked.Load() {
		t.Fatal("testserver: TestMain must call testserver.RunIfServer first")
	}
	linkOnce.Do(func() {
		sweepStale(os.TempDir())
		exe, err := os.Executable()
		if err != nil {
			linkErr = "testserver: " + err.Error()
			return
		}
		dir, err := os.MkdirTemp("", fmt.Sprintf("%s%d-", dirPrefix, os.Getpid()))
		if err != nil {
			linkErr = "testserver: temp dir: " + err.Error()
			return
		}
		p := filepath.Join(dir, name)
		if err := os.Symlink(exe, p); err != nil {
			linkErr = "testserver: " + err.Error()
			return
		}
		linkPath = p
	})
	if linkErr != "" {
		t.Fatal(linkErr)
	}
	return linkPath
}

// sweepStale removes the link directories under tmp whose owning process no longer exists. A
// directory whose pid is alive (or was reused) is kept.
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

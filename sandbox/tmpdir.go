package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// tmpPrefix starts the name of each private temporary folder, followed by the pid and the
// start time (/proc's clock ticks since boot) of the process that made it:
// "agentpool-sandbox-<pid>.<start>-<random>".
const tmpPrefix = "agentpool-sandbox-"

// newTmpDir makes a private temporary folder under os.TempDir, named after this process.
func newTmpDir() (string, error) {
	return os.MkdirTemp("", fmt.Sprintf("%s%d.%s-", tmpPrefix, os.Getpid(), startTime(os.Getpid())))
}

var sweepOnce sync.Once

// SweepStale removes, once per process, the private temporary folders under os.TempDir left
// by processes that ended without removing them (killed with SIGKILL, their servers with
// them): those named after a process that is gone, or whose pid now belongs to a process
// started at another time. Folders of live processes, of other users, and folders it did not
// name are kept. A pool calls it when it starts.
func SweepStale() { sweepOnce.Do(func() { sweepStale(os.TempDir()) }) }

// sweepStale is SweepStale in tmp, every time.
func sweepStale(tmp string) {
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), tmpPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		owner, _, ok := strings.Cut(rest, "-")
		pidText, start, ok2 := strings.Cut(owner, ".")
		pid, err := strconv.Atoi(pidText)
		if !ok || !ok2 || err != nil || pid <= 0 || start == "" {
			continue
		}
		if startTime(pid) == start {
			continue // its maker is alive
		}
		if path := filepath.Join(tmp, e.Name()); ownDir(path) {
			_ = os.RemoveAll(path)
		}
	}
}

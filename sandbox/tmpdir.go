package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// tmpPrefix starts the name of each private temporary folder, followed by the pid, the
// start time (/proc's clock ticks since boot) and the pid namespace of the process that made
// it: "agentpool-sandbox-<pid>.<start>.<pidns>-<random>". A pid means a process in its own
// namespace only, and processes in other ones (containers, sandboxes) may share the folder.
const tmpPrefix = "agentpool-sandbox-"

// newTmpDir makes a private temporary folder under os.TempDir, named after this process.
func newTmpDir() (string, error) {
	return os.MkdirTemp("", tmpOwner())
}

// tmpOwner is the start of the names of this process's folders, read from /proc once: a
// process's pid, start time and pid namespace do not change.
var tmpOwner = sync.OnceValue(func() string {
	return fmt.Sprintf("%s%d.%s.%s-", tmpPrefix, os.Getpid(), startTime(os.Getpid()), pidNS())
})

var sweepOnce sync.Once

// SweepStale removes, once per process, the private temporary folders under os.TempDir left
// by processes that ended without removing them (killed with SIGKILL, their servers with
// them): those named after a process of this pid namespace that is gone, or whose pid now
// belongs to a process started at another time. Folders of live processes, of other pid
// namespaces, of other users, and folders it did not name are kept. A pool calls it when it
// starts.
func SweepStale() { sweepOnce.Do(func() { sweepStale(os.TempDir()) }) }

// sweepStale is SweepStale in tmp, every time.
func sweepStale(tmp string) {
	ns := pidNS()
	if ns == "" {
		return // which pids are whose is unknown
	}
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
		f := strings.Split(owner, ".") // pid, start, pid namespace
		if !ok || len(f) != 3 || f[1] == "" || f[2] != ns {
			continue
		}
		pid, err := strconv.Atoi(f[0])
		start := f[1]
		if err != nil || pid <= 0 {
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

package connpool

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/internal/testwait"
)

// markedPIDs returns the processes whose command line holds marker (ours: the marker is unique).
func markedPIDs(marker string) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && strings.Contains(string(b), marker) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// TestGuardEndsGroupWhenPoolDies: the guard of a server's process group ends the whole group,
// a grandchild behind `sh -c` included, when its pipe closes — which is what this process's
// death does (simulated here by closing our end; cmd/agentpool's TestNoOrphansAfterKill kills
// a real agentpool).
func TestGuardEndsGroupWhenPoolDies(t *testing.T) {
	marker := fmt.Sprintf("guard-%d-%d", os.Getpid(), time.Now().UnixNano())
	p := newTestPool(t, nil)
	cfg := ServerConfig{Name: "wrapped", Server: decl.Server{Command: "sh", Args: []string{"-c", faultBinary(t) + " --linger 1m --ignore-sigterm --stderr " + marker + "; true"}}}
	c := mustGet(t, p, cfg, GlobalPartition)
	defer p.Release(c)
	if c.c.proc.guard == nil {
		t.Fatal("no guard started")
	}
	var server int
	for _, pid := range markedPIDs(marker) {
		if pid != c.PID() {
			server = pid // the grandchild: sh's own cmdline holds the marker too
		}
	}
	if server == 0 {
		t.Fatal("the server behind sh -c is not running")
	}
	c.c.proc.guardW.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	select {
	case <-c.Done():
	case <-ctx.Done():
		t.Fatal("the server's group lived on after its guard's pipe closed")
	}
	testwait.For(t, "the grandchild to die", func() bool { return !alive(server) })
}

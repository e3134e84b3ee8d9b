package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
)

// TestNoOrphansAfterKill: `kill -9` of an agentpool process holding five stdio servers, one
// of them behind `sh -c` (a grandchild: dash does not exec the last command) and two
// sandboxed (one in a network namespace of its own, whose user namespace changes the
// credentials Pdeathsig is kept across), leaves none of them running. The servers linger
// after their stdin closes, so only the kill of agentpool's death can end them: Pdeathsig for
// its children, and the group's guard for the grandchild.
func TestNoOrphansAfterKill(t *testing.T) {
	t.Parallel()
	fault := testserver.Build(t)
	marker := fmt.Sprintf("orphan-%d-%d", os.Getpid(), time.Now().UnixNano())
	server := func(name string) string {
		return fmt.Sprintf("%s --linger 1m --ignore-sigterm --stderr %s-%s", fault, marker, name)
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "agentpool.yaml")
	yaml := fmt.Sprintf(`mcp_servers:
  a:
    command: %s
    args: [--linger, 1m, --ignore-sigterm, --stderr, %s-a]
  b:
    command: %s
    args: [--linger, 1m, --ignore-sigterm, --stderr, %s-b]
  c:
    command: sh
    args: [-c, %q]
  d:
    command: %s
    args: [--linger, 1m, --ignore-sigterm, --stderr, %s-d]
    sandbox: {read: [%s]}
  e:
    command: %s
    args: [--linger, 1m, --ignore-sigterm, --stderr, %s-e]
    sandbox: {read: [%s], network: none}
`, fault, marker, fault, marker, server("c"), fault, marker, dir, fault, marker, dir)
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("agentpool", "--no-default-roots", "--config", cfg, "watch")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		// Whatever survived is ours (it carries the marker): end it, and fail above.
		for _, pid := range markedProcesses(marker) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	testwait.For(t, "watch to start", func() bool { return strings.Contains(stderr.String(), "watching") })

	pids := markedProcesses(marker)
	servers := 0
	for _, pid := range pids {
		if argv := procArgs(pid); len(argv) > 0 && argv[0] == fault {
			servers++
		}
	}
	if servers != 5 {
		t.Fatalf("%d faultserver processes carry the marker (pids %v), want 5; stderr:\n%s", servers, pids, stderr)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	// "One second later" is the expectation; the bound is generous for a loaded machine.
	var alive []int
	defer func() {
		for _, pid := range alive {
			t.Errorf("pid %d (%s) still running after agentpool was killed", pid, strings.Join(procArgs(pid), " "))
		}
	}()
	testwait.Within(t, 5*time.Second, "the servers to end after agentpool was killed", func() bool {
		alive = alive[:0]
		for _, pid := range pids {
			if running(pid) {
				alive = append(alive, pid)
			}
		}
		return len(alive) == 0
	})
}

// markedProcesses returns the pids of the processes whose command line holds marker.
func markedProcesses(marker string) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		for _, arg := range procArgs(pid) {
			if strings.Contains(arg, marker) {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

func procArgs(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(string(bytes.TrimRight(b, "\x00")), "\x00")
}

// running reports whether pid exists and is not a zombie (dead, waiting to be reaped).
func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the command name, which is in parentheses and may hold spaces.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

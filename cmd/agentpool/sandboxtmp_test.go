package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/agentpool/agentpool/sandbox"
)

// TestSandboxTmpAfterKill: `kill -9` of an agentpool holding a sandboxed server leaves the
// server's private temporary folder behind (nothing of agentpool runs to remove it); the next
// agentpool to start a pool removes it, and keeps its own server's.
func TestSandboxTmpAfterKill(t *testing.T) {
	t.Parallel()
	if sandbox.Probe().LandlockABI < 1 {
		t.Skip("no Landlock")
	}
	fault := testserver.Build(t)
	dir, tmp := t.TempDir(), t.TempDir()
	cfg := filepath.Join(dir, "agentpool.yaml")
	writeFile(t, cfg, "mcp_servers:\n  boxed:\n    command: "+fault+"\n    args: [--linger, 1m]\n    sandbox: {read: ["+dir+"]}\n")
	watch := func() (*exec.Cmd, *syncBuffer) {
		cmd := exec.Command("agentpool", "--no-default-roots", "--config", cfg, "watch")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "TMPDIR="+tmp)
		stderr := &syncBuffer{}
		cmd.Stderr = stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		testwait.For(t, "watch to start", func() bool { return strings.Contains(stderr.String(), "watching") })
		return cmd, stderr
	}
	// tmpOf lists the private temporary folders of agentpool process pid.
	tmpOf := func(pid int) []string {
		m, _ := filepath.Glob(filepath.Join(tmp, "agentpool-sandbox-"+strconv.Itoa(pid)+".*"))
		return m
	}

	first, _ := watch()
	left := tmpOf(first.Process.Pid)
	if len(left) != 1 {
		t.Fatalf("agentpool pid %d has private temporary folders %v, want one", first.Process.Pid, left)
	}
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	if _, err := os.Stat(left[0]); err != nil {
		t.Fatalf("after kill -9: %v (the folder was to be left behind)", err)
	}

	second, _ := watch()
	testwait.For(t, "the stale folder "+left[0]+" to be removed", func() bool {
		_, err := os.Stat(left[0])
		return os.IsNotExist(err)
	})
	if own := tmpOf(second.Process.Pid); len(own) != 1 {
		t.Errorf("the second agentpool's private temporary folders: %v, want one", own)
	}
}

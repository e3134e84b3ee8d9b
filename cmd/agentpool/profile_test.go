package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentpool/agentpool/internal/testwait"
)

// A command ended by a second interrupt, which exits at once while its servers are still being
// stopped, still writes its CPU profile: the file AGENTPOOL_CPUPROFILE names holds a profile
// (gzip), not the empty file it was created as.
func TestCPUProfileWrittenOnSecondSignal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	script := filepath.Join(dir, "server.sh")
	// The server ignores SIGTERM, so stopping it takes the pool's kill grace: long enough for a
	// second interrupt to end the command at once.
	writeFile(t, script, "trap '' TERM\necho $$ > "+pidFile+"\nexec sleep 60\n")
	writeFile(t, filepath.Join(dir, "config.yaml"), "mcp_servers:\n  slow:\n    command: sh\n    args: [\""+script+"\"]\n")
	prof := filepath.Join(dir, "cpu.prof")
	cmd := exec.Command("agentpool", "--no-default-roots", "--config", filepath.Join(dir, "config.yaml"), "tools", "list")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "AGENTPOOL_CPUPROFILE="+prof)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	testwait.For(t, "the server to start", func() bool {
		b, err := os.ReadFile(pidFile)
		if err != nil {
			return false
		}
		_, err = fmt.Sscan(string(b), &pid)
		return err == nil
	})
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(20 * time.Second)
	for waiting := true; waiting; {
		select {
		case <-exited:
			waiting = false
		case <-tick.C:
			_ = cmd.Process.Signal(syscall.SIGINT)
		case <-deadline:
			_ = cmd.Process.Kill()
			<-exited
			t.Fatal("tools list did not end")
		}
	}
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupt {
		t.Errorf("exit code %d (%v), want %d; stderr %s", code, cmd.ProcessState, exitInterrupt, stderr)
	}
	b, err := os.ReadFile(prof)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
		t.Errorf("%s holds %d bytes, not a gzipped profile", prof, len(b))
	}
}

// A command writes the heap profile AGENTPOOL_MEMPROFILE names when it ends.
func TestMemProfileWrittenAtExit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	prof := filepath.Join(dir, "heap.prof")
	cmd := exec.Command("agentpool", "--no-default-roots", "skills", "list")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "AGENTPOOL_MEMPROFILE="+prof)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("skills list: %v\n%s", err, out)
	}
	b, err := os.ReadFile(prof)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
		t.Errorf("%s holds %d bytes, not a gzipped profile", prof, len(b))
	}
}

// One signal delivered twice (timeout(1), a kill of the process group) is one event however long
// the first one's handling takes, such as writing the heap profile before the shutdown: when a
// signal came is when it was sent, not when the handling of the first ended.
func TestSameSignalDuringSlowFirstHandling(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sigs := make(chan os.Signal, 2)
		sigs <- syscall.SIGTERM
		sigs <- syscall.SIGTERM
		handled, done := make(chan struct{}), make(chan struct{})
		var killed atomic.Bool
		go func() {
			defer close(done)
			handleSignals(context.Background(), sigs, func(os.Signal) {
				<-time.After(4 * sameSignal) // a large heap's profile
				close(handled)
			}, func(os.Signal) { killed.Store(true) })
		}()
		<-handled
		synctest.Wait()
		close(sigs)
		<-done
		if killed.Load() {
			t.Error("the second delivery of the first signal, sent with it, killed the process")
		}
	})
}

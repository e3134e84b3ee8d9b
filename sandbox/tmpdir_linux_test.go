package sandbox

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// tmpDirInPidNS is, in a process started in new pid and mount namespaces, an agentpool there:
// it mounts its namespace's /proc, makes a private temporary folder, prints its path and
// lives until its stdin closes.
func tmpDirInPidNS() error {
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("private mounts: %w", err)
	}
	if err := syscall.Mount("proc", "/proc", "proc", 0, ""); err != nil {
		return fmt.Errorf("mount /proc: %w", err)
	}
	dir, err := newTmpDir()
	if err != nil {
		return err
	}
	fmt.Println(dir)
	_, err = io.Copy(io.Discard, os.Stdin)
	return err
}

// The private temporary folder of a live process in another pid namespace sharing this /tmp
// (a container, a sandbox), whose pid means another process here, is kept.
func TestSweepKeepsOtherPidNamespace(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("new pid and mount namespaces need root")
	}
	tmp := t.TempDir()
	cmd := child(t, "tmpdir-in-pidns")
	cmd.Env = append(cmd.Env, "TMPDIR="+tmp)
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWPID | syscall.CLONE_NEWNS}
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot start in new namespaces: %v", err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	dir := strings.TrimSpace(line)
	if err != nil || filepath.Dir(dir) != tmp {
		t.Fatalf("the process in the namespaces said %q (%v), want a folder in %s", line, err, tmp)
	}
	sweepStale(tmp)
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("the live process's folder %s: %v", filepath.Base(dir), err)
	}
}

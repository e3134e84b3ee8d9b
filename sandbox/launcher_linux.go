package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
)

// Main is the entry point Command's commands start in: when this process was started by
// Command it applies the policy and executes the server in its place, and never returns
// (a failure exits with status 126 after one line on stderr, which the server's stderr
// shows). Otherwise it returns at once. Call it first thing in main (and in a test main).
func Main() {
	if len(os.Args) < 4 || os.Args[1] != entryArg {
		return
	}
	payload, ok := os.LookupEnv(policyEnv)
	if !ok {
		return
	}
	// The rules bind the thread that applies them; execve from that same thread carries
	// them into the server.
	runtime.LockOSThread()
	os.Unsetenv(policyEnv)
	var l launch
	if err := json.Unmarshal([]byte(payload), &l); err != nil || l.Policy == nil {
		fail(fmt.Errorf("bad policy: %v", err))
	}
	if err := restrict(l.Policy, l.ABI); err != nil {
		fail(err)
	}
	path, argv := os.Args[2], os.Args[3:]
	err := syscall.Exec(path, argv, os.Environ())
	fail(fmt.Errorf("execute %s: %w", path, err))
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "agentpool sandbox: %v\n", err)
	os.Exit(126)
}

// newNamespaces makes cmd start in a new user namespace, mapping this process's uid and
// gid to themselves, with a new network namespace.
func newNamespaces(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	a := cmd.SysProcAttr
	a.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
	a.GidMappingsEnableSetgroups = false
}

// tryUserNS reports whether a process can start in new user and network namespaces.
func tryUserNS() bool {
	t, err := exec.LookPath("true")
	if err != nil {
		return false
	}
	cmd := exec.Command(t)
	newNamespaces(cmd)
	return cmd.Run() == nil
}

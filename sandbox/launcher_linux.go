package sandbox

import (
	"context"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/agentpool/agentpool/sandbox/launch"
)

// Main is the entry point of the re-executed program, the fallback where no agentpool-sandbox
// launcher is found (see Command): when this process was started by Command it applies the
// policy and executes the server in its place, and never returns (a failure exits with status
// 126 after one line on stderr, which the server's stderr shows). Otherwise it returns at
// once. Call it first thing in main (and in a test main).
func Main() { launch.Main() }

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

// probed caches makesNamespaces's answers by launcher file: its path, device, inode, size,
// modification and change time, so that a launcher replaced or rewritten at the same path is
// asked again (the change time, which no one sets by hand, moves with every rewrite).
var probed sync.Map

type launcherFile struct {
	path       string
	dev, ino   uint64
	size, time int64
	ctime      int64
}

// makesNamespaces reports whether the launcher at path is the assembly entry, which makes a
// server's user and network namespaces itself, single-threaded, after a start without them
// (cheaper: the start can vfork). It asks the launcher once per file (launch.Probe: the
// assembly entry exits 0, the Go code refuses), waiting probeWait at most. Any doubt answers false, and then the
// namespaces are made at the start (newNamespaces); a wrong true cannot start a server
// without its namespace either, for the Go code refuses a launch that asks for namespaces.
func makesNamespaces(path string) bool {
	var st syscall.Stat_t
	if syscall.Stat(path, &st) != nil {
		return false
	}
	key := launcherFile{path, st.Dev, st.Ino, st.Size, st.Mtim.Nano(), st.Ctim.Nano()}
	if v, ok := probed.Load(key); ok {
		return v.(bool)
	}
	ctx, cancel := context.WithTimeout(context.Background(), probeWait)
	defer cancel()
	ok := exec.CommandContext(ctx, path, launch.Marker, launch.Probe).Run() == nil
	probed.Store(key, ok)
	return ok
}

// probeWait bounds the wait for a launcher's answer to the probe; one that has not answered
// by then (killed) is taken for one that does not make namespaces.
var probeWait = 5 * time.Second

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

// probeKernel asks the kernel for Landlock and tries a user namespace with a network
// namespace, starting `true` in them.
func probeKernel() Support {
	s := Support{LandlockABI: min(launch.KernelABI(), MaxABI)}
	s.UserNS = tryUserNS()
	return s
}

// onlyOursToChange reports whether path, and the file it links to when it is a link, belong
// to this process's user or to root, and the file is not writable by every user: whether
// another user could have planted or changed it.
func onlyOursToChange(path string) bool {
	ours := func(uid uint32) bool { return uid == 0 || int(uid) == os.Geteuid() }
	var link, file syscall.Stat_t
	return syscall.Lstat(path, &link) == nil && ours(link.Uid) &&
		syscall.Stat(path, &file) == nil && ours(file.Uid) && file.Mode&0o002 == 0
}

package launch

import (
	"os"
	"runtime"
	"strconv"
	"syscall"
)

// run is the child's whole job: no_new_privs, reading its own /proc/self added to the rule
// set (SelfRights), the rule set bound to this thread, its
// descriptor closed (the server never sees it), the seccomp filter, then execve of the
// server. With NoRules it only executes the server.
func run(args []string) {
	// The rules bind the thread that applies them; execve from that same thread carries
	// them into the server.
	runtime.LockOSThread()
	fd, path, argv, refusal := check(args)
	if refusal != "" {
		fail(refusal)
	}
	if fd >= 0 {
		if _, _, errno := syscall.RawSyscall6(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0, 0, 0, 0); errno != 0 {
			failed("prctl(PR_SET_NO_NEW_PRIVS)", errno)
		}
		if errno := addSelf(fd); errno != 0 {
			failed("landlock_add_rule(/proc/self)", errno)
		}
		if _, _, errno := syscall.RawSyscall(sysRestrictSelf, uintptr(fd), 0, 0); errno != 0 {
			failed("landlock_restrict_self", errno)
		}
		if _, _, errno := syscall.RawSyscall(syscall.SYS_CLOSE, uintptr(fd), 0, 0); errno != 0 {
			failed("close", errno)
		}
		if errno := filterSockets(); errno != 0 {
			failed("seccomp", errno)
		}
	}
	err := syscall.Exec(path, argv, os.Environ())
	errno, _ := err.(syscall.Errno)
	failed("execute "+path, errno)
}

// failed ends the process after the step that failed, with the kernel's error number.
func failed(step string, errno syscall.Errno) {
	fail(step + " failed: errno " + strconv.Itoa(int(errno)))
}

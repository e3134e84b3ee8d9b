package launch

import (
	"syscall"
	"unsafe"
)

// Landlock's TCP rules check TCP sockets only: a multipath TCP socket (IPPROTO_MPTCP, which
// Go's listeners use by default) binds and connects past them. So a sandboxed process may not
// create one: socket(…, IPPROTO_MPTCP) fails with EPROTONOSUPPORT, and programs fall back to
// plain TCP, which the rules cover. Landlock (up to ABI 7) does not confine connecting to a
// unix socket by path either (ssh-agent's, the D-Bus session bus, docker.sock), so
// socket(AF_UNIX, …) fails with EACCES; socketpair, which cannot reach anything outside,
// stays allowed. io_uring creates sockets without a system call the filter
// sees, so io_uring_setup fails with ENOSYS (as on a kernel without io_uring; programs fall
// back to plain system calls). The filter also refuses every system call made through
// another architecture's calling convention (i386's int 0x80 or x32 on amd64), which it could not check.
const (
	ipprotoMPTCP    = 262
	afUnix          = 1
	sysIoUringSetup = 425 // the same number on every architecture

	prSetSeccomp      = 22
	seccompModeFilter = 2

	seccompRetAllow = 0x7fff0000
	seccompRetErrno = 0x00050000

	bpfLdWAbs  = syscall.BPF_LD | syscall.BPF_W | syscall.BPF_ABS
	bpfJeqK    = syscall.BPF_JMP | syscall.BPF_JEQ | syscall.BPF_K
	bpfJgeK    = syscall.BPF_JMP | syscall.BPF_JGE | syscall.BPF_K
	x32Bit     = 0x40000000 // __X32_SYSCALL_BIT: amd64's x32 calls
	bpfRetK    = syscall.BPF_RET | syscall.BPF_K
	offNr      = 0  // seccomp_data.nr
	offArch    = 4  // seccomp_data.arch
	offArg0Low = 16 // seccomp_data.args[0], its low half (little-endian)
	offArg2Low = 32 // seccomp_data.args[2], its low half
)

// Filter is the seccomp program (struct sock_filter[]) that the entry point installs; a
// launcher written otherwise installs this same program. It is static data, so that code that
// runs before Go's runtime may read it. Where auditArch is 0 it is not installed.
var Filter = [...]syscall.SockFilter{
	/* 0 */ {Code: bpfLdWAbs, K: offArch},
	/* 1 */ {Code: bpfJeqK, Jt: 0, Jf: 10, K: auditArch}, // another architecture's call: 12
	/* 2 */ {Code: bpfLdWAbs, K: offNr},
	/* 3 */ {Code: bpfJgeK, Jt: 8, Jf: 0, K: x32Bit}, // an x32 call: 12
	/* 4 */ {Code: bpfJeqK, Jt: 7, Jf: 0, K: sysIoUringSetup}, // 12
	/* 5 */ {Code: bpfJeqK, Jt: 0, Jf: 5, K: uint32(syscall.SYS_SOCKET)}, // else 11
	/* 6 */ {Code: bpfLdWAbs, K: offArg0Low},
	/* 7 */ {Code: bpfJeqK, Jt: 5, Jf: 0, K: afUnix}, // 13
	/* 8 */ {Code: bpfLdWAbs, K: offArg2Low},
	/* 9 */ {Code: bpfJeqK, Jt: 0, Jf: 1, K: ipprotoMPTCP},
	/* 10 */ {Code: bpfRetK, K: seccompRetErrno | uint32(syscall.EPROTONOSUPPORT)},
	/* 11 */ {Code: bpfRetK, K: seccompRetAllow},
	/* 12 */ {Code: bpfRetK, K: seccompRetErrno | uint32(syscall.ENOSYS)},
	/* 13 */ {Code: bpfRetK, K: seccompRetErrno | uint32(syscall.EACCES)},
}

// filterSockets installs Filter on the calling thread (no_new_privs must be set).
func filterSockets() syscall.Errno {
	if auditArch == 0 {
		return 0
	}
	fprog := syscall.SockFprog{Len: uint16(len(Filter)), Filter: &Filter[0]}
	_, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetSeccomp, seccompModeFilter, uintptr(unsafe.Pointer(&fprog)))
	return errno
}

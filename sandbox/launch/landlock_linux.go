package launch

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The Landlock system calls and their constants (<linux/landlock.h>); the numbers are the
// same on every architecture.
const (
	sysCreateRuleset = 444
	sysAddRule       = 445
	sysRestrictSelf  = 446

	createRulesetVersion = 1 << 0
	rulePathBeneath      = 1
	ruleNetPort          = 2

	fsExecute    = 1 << 0
	fsWriteFile  = 1 << 1
	fsReadFile   = 1 << 2
	fsReadDir    = 1 << 3
	fsRemoveDir  = 1 << 4
	fsRemoveFile = 1 << 5
	fsMakeChar   = 1 << 6
	fsMakeDir    = 1 << 7
	fsMakeReg    = 1 << 8
	fsMakeSock   = 1 << 9
	fsMakeFifo   = 1 << 10
	fsMakeBlock  = 1 << 11
	fsMakeSym    = 1 << 12
	fsRefer      = 1 << 13 // ABI 2
	fsTruncate   = 1 << 14 // ABI 3
	fsIoctlDev   = 1 << 15 // ABI 5

	netBindTCP    = 1 << 0 // ABI 4
	netConnectTCP = 1 << 1 // ABI 4

	scopeAbstractUnix = 1 << 0 // ABI 6
	scopeSignal       = 1 << 1 // ABI 6

	prSetNoNewPrivs = 38
	atFDCWD         = -100
)

// Rights a rule grants, before masking by what the ABI handles.
const (
	rightsRead  = fsReadFile | fsReadDir
	rightsExec  = rightsRead | fsExecute
	rightsWrite = rightsRead | fsWriteFile | fsRemoveDir | fsRemoveFile | fsMakeChar | fsMakeDir |
		fsMakeReg | fsMakeSock | fsMakeFifo | fsMakeBlock | fsMakeSym | fsRefer | fsTruncate | fsIoctlDev
	// rightsFile are the rights that apply to a file rather than a folder.
	rightsFile = fsExecute | fsWriteFile | fsReadFile | fsTruncate | fsIoctlDev
)

// handledFS returns the filesystem rights ABI abi handles.
func handledFS(abi int) uint64 {
	h := uint64(1<<13 - 1)
	if abi >= 2 {
		h |= fsRefer
	}
	if abi >= 3 {
		h |= fsTruncate
	}
	if abi >= 5 {
		h |= fsIoctlDev
	}
	return h
}

// KernelABI asks the kernel for its Landlock ABI version (0: none).
func KernelABI() int {
	v, _, errno := syscall.Syscall(sysCreateRuleset, 0, 0, createRulesetVersion)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// Ruleset builds r's Landlock rule set, at ABI r.ABI, in this process, which it does not
// restrict, and returns its descriptor (close-on-exec) for a launcher to inherit and bind to
// itself; nil when r.ABI is below 1. A path that does not exist (or may not be opened) is
// skipped, and so is one under /proc/self or /proc/thread-self, or one that leads into this
// process's /proc/<pid> through a symbolic link (/proc/net, /dev/fd, a link of the user's) or
// through one of its descriptor links (/dev/fd/N, /dev/stdin), which would name this
// process's files: the launcher grants the server reading its own
// /proc/self (SelfRights).
func Ruleset(r Rules) (*os.File, error) {
	abi := r.ABI
	if abi < 1 {
		return nil, nil
	}
	handled := handledFS(abi)
	var attr [3]uint64 // handled_access_fs, handled_access_net, scoped
	attr[0] = handled
	if abi >= 4 {
		attr[1] = netBindTCP
		if r.Connect {
			attr[1] |= netConnectTCP
		}
	}
	if abi >= 6 {
		attr[2] = scopeAbstractUnix | scopeSignal
	}
	fd, _, errno := syscall.Syscall(sysCreateRuleset, uintptr(unsafe.Pointer(&attr[0])), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return nil, fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	f := os.NewFile(fd, "landlock-ruleset") // the kernel made it close-on-exec
	own := ownProcDir()
	for _, list := range []struct {
		paths  []string
		rights uint64
	}{{r.Read, rightsRead}, {r.Exec, rightsExec}, {r.Write, rightsWrite}} {
		for _, path := range list.paths {
			if ownProc(path) {
				continue
			}
			if err := addPath(int(fd), path, list.rights&handled, own); err != nil {
				f.Close()
				return nil, err
			}
		}
	}
	if attr[1]&netConnectTCP != 0 {
		for _, port := range r.Ports {
			var rule [16]byte // allowed_access, port
			binary.NativeEndian.PutUint64(rule[0:], netConnectTCP)
			binary.NativeEndian.PutUint64(rule[8:], uint64(port))
			if _, _, errno := syscall.Syscall6(sysAddRule, fd, ruleNetPort, uintptr(unsafe.Pointer(&rule[0])), 0, 0, 0); errno != 0 {
				f.Close()
				return nil, fmt.Errorf("landlock rule for TCP port %d: %w", port, errno)
			}
		}
	}
	return f, nil
}

// addPath grants rights beneath path; a path that does not exist is skipped, and so is one
// that opens as own (ownProcDir) or beneath it, or through a descriptor link (openPath); a
// file gets only the rights that apply to files.
func addPath(rulesetFD int, path string, rights uint64, own string) error {
	if path == "" {
		return nil
	}
	fd, err := openPath(path)
	if errors.Is(err, errDescriptorLink) {
		return nil
	}
	if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.EACCES) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("landlock rule for %s: %w", path, err)
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return fmt.Errorf("landlock rule for %s: %w", path, err)
	}
	if own != "" && onProc(fd, st.Dev) {
		// Only a proc filesystem holds this process's /proc/<pid>: where the others lead
		// need not be read, which costs more than the rest of the rule.
		at, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
		if err != nil || at == own || strings.HasPrefix(at, own+"/") {
			return nil // this process's own files, or where it leads is unknown
		}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
		rights &= rightsFile
	}
	if rights == 0 {
		return nil
	}
	var rule [12]byte // allowed_access, parent_fd: packed
	binary.NativeEndian.PutUint64(rule[0:], rights)
	binary.NativeEndian.PutUint32(rule[8:], uint32(int32(fd)))
	if _, _, errno := syscall.Syscall6(sysAddRule, uintptr(rulesetFD), rulePathBeneath, uintptr(unsafe.Pointer(&rule[0])), 0, 0, 0); errno != 0 {
		return fmt.Errorf("landlock rule for %s: %w", path, errno)
	}
	return nil
}

// SelfRights are the rights a launcher grants beneath its own /proc/self, in the rule set it
// inherits, before binding it: what a process reads of itself, which the process that builds
// the rules cannot name.
const SelfRights = rightsRead

// errDescriptorLink is openPath's error for a path through one of /proc's descriptor links.
var errDescriptorLink = errors.New("leads through a descriptor link of /proc")

// openPath opens path as O_PATH without following /proc's descriptor links (/proc/<pid>/fd/N,
// exe, cwd, root: /dev/fd/N, /dev/stdin), which in this process lead to what this process has
// open (errDescriptorLink). Where openat2 is refused, it opens path as open does.
func openPath(path string) (int, error) {
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_MAGICLINKS}
	fd, err := unix.Openat2(unix.AT_FDCWD, path, &how)
	switch {
	case errors.Is(err, syscall.ELOOP):
		// A descriptor link, or too many links: only the first opens without the flag.
		fd, err := syscall.Open(path, unix.O_PATH|syscall.O_CLOEXEC, 0)
		if err != nil {
			return -1, err
		}
		syscall.Close(fd)
		return -1, errDescriptorLink
	case errors.Is(err, syscall.ENOSYS) || errors.Is(err, syscall.EPERM):
		return syscall.Open(path, unix.O_PATH|syscall.O_CLOEXEC, 0)
	}
	return fd, err
}

// ownProcDir is this process's folder in /proc, where /proc/self leads ("" without /proc).
func ownProcDir() string {
	pid, err := os.Readlink("/proc/self")
	if err != nil {
		return ""
	}
	return "/proc/" + pid
}

// onProc reports whether descriptor fd, on device dev, is on a proc filesystem, or may be
// (true when the kernel does not say). A proc filesystem's device has major number 0, as
// every filesystem without a block device has; only those are asked.
func onProc(fd int, dev uint64) bool {
	if unix.Major(dev) != 0 {
		return false
	}
	var fs unix.Statfs_t
	return unix.Fstatfs(fd, &fs) != nil || fs.Type == unix.PROC_SUPER_MAGIC
}

// ownProc reports whether path is /proc/self or /proc/thread-self or beneath them.
func ownProc(path string) bool {
	for _, p := range []string{"/proc/self", "/proc/thread-self"} {
		if path == p || strings.HasPrefix(path, p+"/") {
			return true
		}
	}
	return false
}

// addSelf grants SelfRights beneath this process's /proc/self in rule set rulesetFD; without
// /proc, nothing.
func addSelf(rulesetFD int) syscall.Errno {
	path := [...]byte{'/', 'p', 'r', 'o', 'c', '/', 's', 'e', 'l', 'f', 0}
	dirfd := atFDCWD
	fd, _, errno := syscall.RawSyscall6(syscall.SYS_OPENAT, uintptr(dirfd), uintptr(unsafe.Pointer(&path[0])), unix.O_PATH|syscall.O_CLOEXEC, 0, 0, 0)
	if errno != 0 {
		return 0
	}
	var rule [12]byte // allowed_access, parent_fd: packed
	binary.NativeEndian.PutUint64(rule[0:], SelfRights)
	binary.NativeEndian.PutUint32(rule[8:], uint32(int32(fd)))
	_, _, errno = syscall.RawSyscall6(sysAddRule, uintptr(rulesetFD), rulePathBeneath, uintptr(unsafe.Pointer(&rule[0])), 0, 0, 0)
	syscall.RawSyscall(syscall.SYS_CLOSE, fd, 0, 0)
	return errno
}

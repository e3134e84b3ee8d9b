package sandbox

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// startTime is process pid's start time, in clock ticks since boot, as /proc/<pid>/stat's
// 22nd field has it; "" when there is no such process.
func startTime(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the command's name may hold spaces and parentheses
	if i < 0 {
		return ""
	}
	f := strings.Fields(s[i+1:]) // from the 3rd field, state, on
	if len(f) < 20 {
		return ""
	}
	return f[19]
}

// pidNS is the identity of this process's pid namespace (its inode number); "" when /proc
// does not say.
func pidNS() string {
	link, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return ""
	}
	ino, ok := strings.CutPrefix(link, "pid:[")
	ino, ok2 := strings.CutSuffix(ino, "]")
	if !ok || !ok2 {
		return ""
	}
	return ino
}

// ownDir reports whether path is a folder (not a link) of this process's user.
func ownDir(path string) bool {
	var st syscall.Stat_t
	return syscall.Lstat(path, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFDIR && int(st.Uid) == os.Getuid()
}

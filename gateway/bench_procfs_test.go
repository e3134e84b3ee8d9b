package gateway_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/agentpool/agentpool/internal/testwait"
)

// What the process benchmarks read of another process, from /proc (Linux): its CPU time and
// its resident memory.

// atClkTck is the auxiliary vector's entry for the kernel's clock tick rate (AT_CLKTCK), the
// value sysconf(_SC_CLK_TCK) returns.
const atClkTck = 17

// clockTicks is the number of clock ticks per second in which /proc/<pid>/stat counts CPU
// time: AT_CLKTCK from this process's auxiliary vector, or 100 (the USER_HZ of every Linux
// architecture Go runs on) when it cannot be read.
var clockTicks = sync.OnceValue(func() int64 {
	raw, err := os.ReadFile("/proc/self/auxv")
	if err != nil {
		return 100
	}
	word := int(unsafe.Sizeof(uintptr(0)))
	read := func(p []byte) uint64 {
		if word == 4 {
			return uint64(binary.NativeEndian.Uint32(p))
		}
		return binary.NativeEndian.Uint64(p)
	}
	for p := raw; len(p) >= 2*word; p = p[2*word:] {
		if read(p) == atClkTck {
			if hz := int64(read(p[word:])); hz > 0 {
				return hz
			}
		}
	}
	return 100
})

// procCPU returns the CPU time process pid has used so far, user and system, all its threads
// (utime + stime of /proc/<pid>/stat). A process that cannot be read fails b.
func procCPU(b testing.TB, pid int) time.Duration {
	b.Helper()
	return statCPU(b, fmt.Sprintf("/proc/%d/stat", pid))
}

// monitorCPU returns the CPU time the Go runtime's monitor thread (sysmon) of process pid has
// used so far: the process's second thread, which the runtime starts for its monitor before
// any other (its thread id is the lowest after the main thread's). A process that cannot be
// read fails b.
func monitorCPU(b testing.TB, pid int) time.Duration {
	b.Helper()
	entries, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		b.Fatalf("threads of process %d: %v", pid, err)
	}
	second := 0
	for _, e := range entries {
		if tid, err := strconv.Atoi(e.Name()); err == nil && tid != pid && (second == 0 || tid < second) {
			second = tid
		}
	}
	if second == 0 {
		b.Fatalf("process %d has one thread", pid)
	}
	return statCPU(b, fmt.Sprintf("/proc/%d/task/%d/stat", pid, second))
}

// statCPU returns utime + stime of the stat file at path (a process's or a thread's).
func statCPU(b testing.TB, path string) time.Duration {
	b.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		b.Fatalf("CPU time: %v", err)
	}
	// The command name (field 2) is in parentheses and may hold spaces: count fields after it.
	i := bytes.LastIndexByte(raw, ')')
	f := strings.Fields(string(raw[i+1:]))
	// f[0] is field 3 (state), so utime (field 14) is f[11] and stime (field 15) f[12].
	if i < 0 || len(f) < 13 {
		b.Fatalf("%s: cannot read %q", path, raw)
	}
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			b.Fatalf("%s: %v", path, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / time.Duration(clockTicks())
}

// procRSS returns process pid's resident memory (VmRSS of /proc/<pid>/status) in bytes. A
// process that cannot be read fails b.
func procRSS(b testing.TB, pid int) int64 {
	b.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatalf("resident memory of process %d: %v", pid, err)
	}
	for line := range strings.Lines(string(raw)) {
		v, ok := strings.CutPrefix(line, "VmRSS:")
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil {
			b.Fatalf("/proc/%d/status: VmRSS %q: %v", pid, v, err)
		}
		return kb << 10
	}
	b.Fatalf("/proc/%d/status has no VmRSS", pid)
	return 0
}

// settleWindow is how long a process must use (next to) no CPU for procSettle to take it for
// idle: longer than a clock tick of /proc's CPU time, shorter than any cycle of serve's own.
const settleWindow = 300 * time.Millisecond

// procSettle waits until process pid has used at most one clock tick of CPU time over
// settleWindow, so that what it did before (a garbage collection of a large heap that opening
// sessions started, the scavenger returning pages) is over before a latency is measured. A
// process that never settles within two minutes fails b.
func procSettle(b testing.TB, pid int) {
	b.Helper()
	tick := time.Second / time.Duration(clockTicks())
	since, cpu := time.Now(), procCPU(b, pid)
	testwait.Within(b, 2*time.Minute, fmt.Sprintf("process %d to use no CPU for %v", pid, settleWindow), func() bool {
		now, c := time.Now(), procCPU(b, pid)
		if c-cpu > tick {
			since, cpu = now, c
			return false
		}
		return now.Sub(since) >= settleWindow
	})
}

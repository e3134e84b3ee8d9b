package pin

import (
	"syscall"
	"time"
	"unsafe"
)

// threadCPU returns the CPU time the calling OS thread has used (CLOCK_THREAD_CPUTIME_ID),
// which other processes on a busy machine do not inflate; ok is false where it is unknown.
// The caller locks its goroutine to its thread.
func threadCPU() (d time.Duration, ok bool) {
	const clockThreadCPUTimeID = 3
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}

// Package threadcpu reads the CPU time of the calling OS thread, for benchmarks that report
// a figure other processes on a busy machine do not inflate.
package threadcpu

import "time"

// Now returns the CPU time the calling OS thread has used (CLOCK_THREAD_CPUTIME_ID); ok is
// false where it is unknown. The caller locks its goroutine to its thread
// (runtime.LockOSThread) so that two readings are of one thread.
func Now() (d time.Duration, ok bool) { return now() }

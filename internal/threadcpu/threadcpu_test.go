package threadcpu

import (
	"runtime"
	"testing"
)

// The thread's CPU time grows with work done on it.
func TestNowGrows(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	a, ok := Now()
	if !ok {
		t.Skip("no thread CPU clock on " + runtime.GOOS)
	}
	x := 0
	for i := range 50_000_000 {
		x += i % 7
	}
	b, _ := Now()
	if b <= a {
		t.Fatalf("thread CPU %v then %v after work (%d)", a, b, x)
	}
}

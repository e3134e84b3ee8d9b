//go:build linux

package regfile

import (
	"errors"
	"testing"
)

// TestProcFile: /proc/self/status is a "regular" file whose fstat says size 0: it is read to
// its end, and the cap still holds, on the bytes read.
func TestProcFile(t *testing.T) {
	data, err := ReadFile("/proc/self/status", 1<<20)
	if err != nil || len(data) == 0 {
		t.Fatalf("ReadFile(/proc/self/status) = %d bytes, %v; want it whole", len(data), err)
	}
	if _, err := ReadFile("/proc/self/status", 16); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadFile(/proc/self/status, 16) = %v, want ErrTooLarge", err)
	}
}

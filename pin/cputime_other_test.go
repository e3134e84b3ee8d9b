//go:build !linux

package pin

import "time"

func threadCPU() (time.Duration, bool) { return 0, false }

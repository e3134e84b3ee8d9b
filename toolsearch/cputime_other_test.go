//go:build !linux

package toolsearch

import "time"

func threadCPU() (time.Duration, bool) { return 0, false }

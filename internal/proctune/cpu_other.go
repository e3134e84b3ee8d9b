//go:build !unix

package proctune

import "time"

// cpuTime cannot read the process's CPU time here: nothing is tuned.
func cpuTime() (time.Duration, bool) { return 0, false }

//go:build !linux

package proctune

// cgroupLimit returns a reading of the process's CPU limit: none known here.
func cgroupLimit() func() (float64, bool) { return noLimit }

package gateway

import "time"

// SetWriteStall sets the bound on one write to a client's stream, for a test.
func SetWriteStall(d time.Duration) (restore func()) {
	old := writeStall
	writeStall = d
	return func() { writeStall = old }
}

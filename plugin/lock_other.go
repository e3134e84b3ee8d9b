//go:build !unix

package plugin

// lockFile is a no-op where flock(2) is not available: two processes changing the state at
// the same moment may then lose one choice (last rename wins).
func lockFile(string) (func(), error) { return func() {}, nil }

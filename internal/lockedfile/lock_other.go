//go:build !unix

package lockedfile

// lock locks nothing where flock(2) is not available (see Lock).
func lock(string) (func(), error) { return func() {}, nil }

//go:build !unix

package trust

// lock is a no-op where flock(2) is not available: two processes trusting at the same moment
// may then lose one record (last rename wins), which only asks again.
func (s *Store) lock() (func(), error) { return func() {}, nil }

//go:build unix

package trust

import (
	"fmt"
	"os"
	"syscall"
)

// lock takes an exclusive lock on the store's lock file (path + ".lock", created 0600),
// waiting for another process (or Store) that holds it, and returns its release. The store's
// read-modify-write runs under it, so two agentpool processes trusting two projects at once
// keep both records.
func (s *Store) lock() (func(), error) {
	f, err := os.OpenFile(s.path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("trust: lock %s: %w", s.path, err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("trust: lock %s: %w", s.path, err)
	}
	return func() { _ = f.Close() }, nil // closing the descriptor releases the lock
}

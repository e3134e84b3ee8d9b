//go:build unix

package plugin

import (
	"fmt"
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on path+".lock" (created 0600), waiting for another process
// that holds it, and returns its release.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("plugin: lock %s: %w", path, err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("plugin: lock %s: %w", path, err)
	}
	return func() { _ = f.Close() }, nil // closing the descriptor releases the lock
}

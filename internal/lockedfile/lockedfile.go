// Package lockedfile keeps small state files that several agentpool processes may change at
// once (the trust store, the plugins' enable state): a change is a read-modify-write under an
// exclusive flock(2) of a lock file beside the state, and the new content is written to a
// 0600 temporary file in the same folder and renamed over the old, so a reader sees the old
// file or the new one, never half of either.
package lockedfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Lock makes path's folder (0700) and takes an exclusive lock on path+".lock" (created
// 0600), waiting for a process that holds it; it returns the release. Where flock(2) is not
// available it locks nothing: two changes at the same moment may then lose one (the last
// rename wins).
func Lock(path string) (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	unlock, err = lock(path + ".lock")
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return unlock, nil
}

// Write replaces the file at path with data and a final newline, atomically: a temporary file
// in the same folder (0600, synced), renamed over it. The folder is made (0700) when missing.
func Write(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+"-*") // CreateTemp makes it 0600
	if err != nil {
		return err
	}
	_, werr := tmp.Write(append(data, '\n'))
	serr := tmp.Sync()
	cerr := tmp.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

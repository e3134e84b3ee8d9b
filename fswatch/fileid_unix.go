//go:build unix

package fswatch

import (
	"io/fs"
	"syscall"
)

// fileID identifies a directory independent of the path that reached it, for cycle detection.
type fileID struct {
	dev, ino uint64
}

func idOf(_ string, fi fs.FileInfo) (fileID, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)}, true //nolint:unconvert // Dev is int32 on some platforms
}

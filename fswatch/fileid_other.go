//go:build !unix

package fswatch

import (
	"io/fs"
	"path/filepath"
)

// fileID identifies a directory independent of the path that reached it, for cycle detection.
// Without inodes, the fully resolved path stands in for them.
type fileID struct {
	path string
}

func idOf(path string, _ fs.FileInfo) (fileID, bool) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return fileID{}, false
	}
	return fileID{path: real}, true
}

package command

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentpool/agentpool/fswatch"
	"github.com/agentpool/agentpool/internal/regfile"
)

// scanFS is where a scan reads: the file system as it is, or, with FileOptions.Confine, only
// what lies inside one folder. Confined, every path given to it is a real path (symlinks
// resolved once, by resolve) and is read through an os.Root on the folder, so a link swapped in
// after the check cannot lead out either.
type scanFS struct {
	dir  string   // the confining folder, real and absolute; "" when not confined
	root *os.Root // open on dir; nil when not confined
}

// newScanFS opens the confining folder confine ("" for none).
func newScanFS(confine string) (*scanFS, error) {
	if confine == "" {
		return &scanFS{}, nil
	}
	dir, err := realPath(confine)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &scanFS{dir: dir, root: root}, nil
}

// Close closes the os.Root of a confined scanFS.
func (f *scanFS) Close() {
	if f.root != nil {
		f.root.Close()
	}
}

// outsideError is a path whose real path lies outside the confining folder. It names the link
// and where it points as written in it, which is the folder's own content, not the machine's.
type outsideError struct{ path, target, dir string }

func (e *outsideError) Error() string {
	if e.target == "" {
		return fmt.Sprintf("%s lies outside %s; not read", e.path, e.dir)
	}
	return fmt.Sprintf("symbolic link to %s leads outside %s; not read", e.target, e.dir)
}

// resolve returns the path to read path at: path itself when not confined, else its real path,
// checked to lie inside the confining folder (an *outsideError when not).
func (f *scanFS) resolve(path string) (string, error) {
	if f.root == nil {
		return path, nil
	}
	real, err := realPath(path)
	if err != nil {
		return "", err
	}
	if !inside(f.dir, real) {
		target, _ := os.Readlink(path)
		return "", &outsideError{path: path, target: target, dir: f.dir}
	}
	return real, nil
}

// rel is real (inside f.dir) as a name for f.root.
func (f *scanFS) rel(real string) string {
	rel, err := filepath.Rel(f.dir, real)
	if err != nil {
		return real // not relative: os.Root refuses it
	}
	return rel
}

// readDir lists the folder at a path resolve returned.
func (f *scanFS) readDir(at string) ([]fs.DirEntry, error) {
	if f.root == nil {
		return os.ReadDir(at)
	}
	d, err := f.root.Open(f.rel(at))
	if err != nil {
		return nil, err
	}
	defer d.Close()
	ents, err := d.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	return ents, nil
}

// stat stats a path resolve returned, following symlinks.
func (f *scanFS) stat(at string) (fs.FileInfo, error) {
	if f.root == nil {
		return os.Stat(at)
	}
	return f.root.Stat(f.rel(at))
}

// open opens a path resolve returned as a regular file (regfile).
func (f *scanFS) open(at string) (*os.File, error) {
	if f.root == nil {
		return regfile.Open(at)
	}
	return regfile.OpenIn(f.root, f.rel(at))
}

// watchSkip is the watcher's Skip rule: fswatch's default, and, confined (confine not ""),
// every folder whose real path lies outside confine, so that a link out of it adds no watch
// on the tree it leads to, as the scan does not read it.
func watchSkip(confine string) func(string) bool {
	if confine == "" {
		return nil
	}
	dir := filepath.Clean(confine)
	if real, err := realPath(confine); err == nil {
		dir = real
	}
	return func(p string) bool {
		if fswatch.DefaultSkip(p) {
			return true
		}
		real, err := realPath(p)
		return err != nil || !inside(dir, real)
	}
}

// realPath resolves the symlinks in p and makes it absolute.
func realPath(p string) (string, error) {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", err
	}
	return filepath.Abs(real)
}

// inside reports whether p is dir or below it (both clean and absolute).
func inside(dir, p string) bool {
	return p == dir || strings.HasPrefix(p, dir) && len(p) > len(dir) && (p[len(dir)] == filepath.Separator || dir == string(filepath.Separator))
}

// isOutside reports an *outsideError.
func isOutside(err error) bool {
	var o *outsideError
	return errors.As(err, &o)
}

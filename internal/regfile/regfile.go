package regfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular is wrapped by every refusal of a path that is not a regular file (a named
// pipe, a device, a socket, a folder).
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped by every refusal of a file larger than the cap it was read with.
var ErrTooLarge = errors.New("file larger than its cap")

// NotRegularError says what a path is instead of a regular file ("is a named pipe, not a
// regular file"). It is ErrNotRegular for errors.Is; Mode tells callers that treat a folder
// apart (as "not found") which it was.
type NotRegularError struct {
	// Mode is the file's mode as stat or fstat gave it.
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return "is a " + Kind(e.Mode) + ", not a regular file"
}

// Is reports whether target is ErrNotRegular.
func (e *NotRegularError) Is(target error) bool { return target == ErrNotRegular }

// sizeError says that a file is over its cap.
type sizeError struct{ max int64 }

func (e *sizeError) Error() string        { return "larger than the " + Size(e.max) + " cap" }
func (e *sizeError) Is(target error) bool { return target == ErrTooLarge }

// Kind names what a file mode stands for, as a user would say it ("named pipe",
// "character device"); "regular file" for a regular one.
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "regular file"
	case m&fs.ModeDir != 0:
		return "directory"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "block device"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	}
	return "special file"
}

// Size formats a byte count the way caps are written: "1 MiB", "64 KiB", "100 bytes".
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// notRegular returns the error for name, whose mode m is not a regular file's.
func notRegular(name string, m fs.FileMode) error {
	return &fs.PathError{Op: "open", Path: name, Err: &NotRegularError{Mode: m}}
}

// Open opens the file at name for reading when it is a regular file, and refuses anything
// else without blocking: see the package doc for how. The caller closes the file.
func Open(name string) (*os.File, error) {
	if info, err := os.Stat(name); err == nil && !info.Mode().IsRegular() {
		return nil, notRegular(name, info.Mode())
	}
	f, err := os.OpenFile(name, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, err
	}
	return checked(f, name)
}

// OpenIn is Open for name inside root: the open cannot leave root (os.Root's rule).
func OpenIn(root *os.Root, name string) (*os.File, error) {
	if info, err := root.Stat(name); err == nil && !info.Mode().IsRegular() {
		return nil, notRegular(name, info.Mode())
	}
	f, err := root.OpenFile(name, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, err
	}
	return checked(f, name)
}

// checked returns f when its descriptor is a regular file, else closes it and returns why.
func checked(f *os.File, name string) (*os.File, error) {
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, notRegular(name, info.Mode())
	}
	return f, nil
}

// Read reads f to its end, at most max bytes: a file larger than max is refused with an
// ErrTooLarge error naming f and the cap, before reading when its size already says so.
func Read(f *os.File, max int64) ([]byte, error) {
	tooLarge := &fs.PathError{Op: "read", Path: f.Name(), Err: &sizeError{max: max}}
	if info, err := f.Stat(); err == nil && info.Size() > max {
		return nil, tooLarge
	}
	// The file may have grown since the fstat: the read itself is bounded too.
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, tooLarge
	}
	return data, nil
}

// ReadFile reads the regular file at name, at most max bytes (Open, then Read).
func ReadFile(name string, max int64) ([]byte, error) {
	f, err := Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, max)
}

package ext

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/agentpool/agentpool/internal/regfile"
)

// maxDecodeRounds bounds the repeated percent-decoding of a relative path. A path still
// changing after that many rounds is treated as an attack.
const maxDecodeRounds = 8

// cleanRel turns an untrusted relative path into a clean, slash-separated relative path that
// does not start with "..", or fails with ErrPathTraversal. It decodes percent-escapes until
// stable (so %2e%2e and %252e%252e both become ..), treats backslashes as separators, and
// rejects NUL and absolute paths (including drive letters and UNC-style //).
func cleanRel(rel string) (string, error) {
	s := rel
	for i := 0; ; i++ {
		d := percentDecodeLenient(s)
		if d == s {
			break
		}
		if i == maxDecodeRounds {
			return "", fmt.Errorf("path %q: more than %d levels of percent-encoding: %w", rel, maxDecodeRounds, ErrPathTraversal)
		}
		s = d
	}
	if strings.IndexByte(s, 0) >= 0 {
		return "", fmt.Errorf("path %q: NUL byte: %w", rel, ErrPathTraversal)
	}
	s = strings.ReplaceAll(s, `\`, "/")
	if strings.HasPrefix(s, "/") || hasDriveLetter(s) {
		return "", fmt.Errorf("path %q: absolute path: %w", rel, ErrPathTraversal)
	}
	c := filepath.ToSlash(filepath.Clean(filepath.FromSlash(s)))
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("path %q: leaves its root: %w", rel, ErrPathTraversal)
	}
	return c, nil
}

// hasDriveLetter reports a Windows drive prefix such as "C:" (harmless on Unix, but never a
// legitimate relative path in a skill or command folder).
func hasDriveLetter(s string) bool {
	return len(s) >= 2 && s[1] == ':' && ('a' <= s[0] && s[0] <= 'z' || 'A' <= s[0] && s[0] <= 'Z')
}

// within reports whether path is root or below it. Both must be clean and absolute; the
// separator check rejects a sibling such as "<root>-evil".
func within(root, path string) bool {
	if path == root {
		return true
	}
	prefix := root
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	return strings.HasPrefix(path, prefix)
}

// realRoot returns root made absolute with its symlinks resolved.
func realRoot(root string) (string, error) {
	if root == "" {
		return "", fmt.Errorf("confine: empty root: %w", ErrNotFound)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("confine: root %q: %w", root, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if isNotExist(err) {
			return "", fmt.Errorf("confine: root %q: %w", root, ErrNotFound)
		}
		return "", fmt.Errorf("confine: root %q: %w", root, err)
	}
	return real, nil
}

func isNotExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// confine is Confine returning the resolved root too.
func confine(root, rel string) (realRootPath, target string, err error) {
	clean, err := cleanRel(rel)
	if err != nil {
		return "", "", fmt.Errorf("confine to %q: %w", root, err)
	}
	rr, err := realRoot(root)
	if err != nil {
		return "", "", err
	}
	joined := filepath.Join(rr, filepath.FromSlash(clean))
	real, err := filepath.EvalSymlinks(joined)
	if err != nil {
		if isNotExist(err) {
			return "", "", missing(rr, joined, rel)
		}
		return "", "", fmt.Errorf("confine %q to %q: %w", rel, root, err)
	}
	if !within(rr, real) {
		// Where it leads is left out: the error reaches MCP clients (a skill read), and a path
		// outside the root (under the user's home) is none of theirs.
		return "", "", fmt.Errorf("confine %q to %q: resolves outside the root: %w", rel, root, ErrPathTraversal)
	}
	return rr, real, nil
}

// missing explains why joined does not resolve: ErrNotFound, unless the deepest part of it that
// exists already leads out of root (a symlinked folder, or a dangling symlink pointing out),
// which is ErrPathTraversal.
func missing(root, joined, rel string) error {
	notFound := fmt.Errorf("confine %q to %q: %w", rel, root, ErrNotFound)
	p := joined
	var fi os.FileInfo
	for {
		var err error
		fi, err = os.Lstat(p)
		if err == nil {
			break
		}
		if !isNotExist(err) {
			return fmt.Errorf("confine %q to %q: %w", rel, root, err)
		}
		parent := filepath.Dir(p)
		if parent == p || !within(root, parent) {
			return notFound
		}
		p = parent
	}
	escape := fmt.Errorf("confine %q to %q: %q leads outside the root: %w", rel, root, p, ErrPathTraversal)
	real, err := filepath.EvalSymlinks(p)
	if err == nil {
		if !within(root, real) {
			return escape
		}
		return notFound
	}
	if fi.Mode()&fs.ModeSymlink == 0 {
		return notFound
	}
	// p is a dangling symlink: judge where it points, lexically.
	dest, err := os.Readlink(p)
	if err != nil {
		return notFound
	}
	if !filepath.IsAbs(dest) {
		dir, err := filepath.EvalSymlinks(filepath.Dir(p))
		if err != nil {
			return notFound
		}
		dest = filepath.Join(dir, dest)
	}
	if !within(root, filepath.Clean(dest)) {
		return escape
	}
	return notFound
}

// Confine returns the absolute, symlink-resolved path of rel inside root, or an error. rel is
// untrusted: it is percent-decoded until stable, backslashes count as separators, and NUL,
// absolute paths and ".." leaving root are ErrPathTraversal, as is any path whose resolved
// form (after following symlinks) is not root itself or below root plus a separator — so a
// sibling "<root>-evil" is rejected. A path that does not exist is ErrNotFound, unless the part
// of it that exists already leads out of root (ErrPathTraversal). A missing root is
// ErrNotFound. Errors name rel and root, never where a symlink leading out points.
//
// Confine checks a path at one instant; to read the file use OpenConfined, which cannot be
// redirected by a symlink swapped in after the check.
func Confine(root, rel string) (string, error) {
	_, target, err := confine(root, rel)
	return target, err
}

// openHook, when set by a test, runs between OpenConfined's check and its open.
var openHook func()

// OpenConfined opens rel inside root for reading, with the checks of Confine, through an
// os.Root so that a symlink swapped in between the check and the open cannot lead out of root
// (ErrPathTraversal). A missing file, or a folder, is ErrNotFound. Only a regular file is
// opened (regfile.OpenIn: non-blocking open, checked on the descriptor): a named pipe, which
// would block the open until a writer comes, a device or a socket is refused with an error
// wrapping regfile.ErrNotRegular. The caller closes the file.
func OpenConfined(root, rel string) (*os.File, error) {
	rr, target, err := confine(root, rel)
	if err != nil {
		return nil, err
	}
	if openHook != nil {
		openHook()
	}
	relTarget, err := filepath.Rel(rr, target)
	if err != nil {
		return nil, fmt.Errorf("open %q in %q: %w", rel, root, err)
	}
	r, err := os.OpenRoot(rr)
	if err != nil {
		if isNotExist(err) {
			return nil, fmt.Errorf("open %q in %q: root: %w", rel, root, ErrNotFound)
		}
		return nil, fmt.Errorf("open %q in %q: %w", rel, root, err)
	}
	defer r.Close()
	f, err := regfile.OpenIn(r, relTarget)
	if err != nil {
		switch {
		case errors.Is(err, regfile.ErrNotRegular):
			if nr := (*regfile.NotRegularError)(nil); errors.As(err, &nr) && nr.Mode.IsDir() {
				return nil, fmt.Errorf("open %q in %q: %v: %w", rel, root, nr, ErrNotFound)
			}
			return nil, fmt.Errorf("open %q in %q: %w", rel, root, unwrapPath(err))
		case isEscape(err):
			return nil, fmt.Errorf("open %q in %q: %v: %w", rel, root, err, ErrPathTraversal)
		case isNotExist(err):
			return nil, fmt.Errorf("open %q in %q: %w", rel, root, ErrNotFound)
		}
		return nil, fmt.Errorf("open %q in %q: %w", rel, root, err)
	}
	return f, nil
}

// unwrapPath drops the path from an *fs.PathError (the caller names rel and root instead),
// keeping what it wraps.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// isEscape recognises os.Root's "path escapes from parent" error, which is not exported.
func isEscape(err error) bool {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return err != nil && strings.Contains(err.Error(), "escapes from parent")
}

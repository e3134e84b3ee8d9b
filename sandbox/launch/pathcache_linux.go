package launch

import (
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// paths keeps the descriptors (O_PATH) that rules were last built from, by path, so that the
// next rule set naming the same path costs a stat and the rule instead of an open, a stat and
// a close: a sandboxed server's start waits for every rule of its set, and most of them (the
// runtime's files) are the same from start to start. An entry serves only while its path
// still leads to the same file, the same device and inode (the descriptor held keeps that
// inode, so its number cannot be reused meanwhile); otherwise it is dropped and the path is
// opened afresh. Only files on a filesystem with a block device are kept: the others (proc,
// sys, tmpfs, devices) are opened and checked each time (addPath).
var paths = pathCache{m: make(map[string]cachedPath)}

// maxCachedPaths bounds the descriptors paths holds; past it, new paths are not kept.
const maxCachedPaths = 512

type pathCache struct {
	mu sync.Mutex // held while an entry's descriptor is used, so that none is closed under a rule
	m  map[string]cachedPath
}

type cachedPath struct {
	fd       int
	dev, ino uint64
	dir      bool
}

// add adds the rule for path to rule set rulesetFD from the entry for path, with rights
// (those that apply to files only, for a file), and reports whether it had a valid entry; the
// error is the rule's.
func (c *pathCache) add(rulesetFD int, path string, rights uint64) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[path]
	if !ok {
		return false, nil
	}
	var st syscall.Stat_t
	if syscall.Stat(path, &st) != nil || st.Dev != e.dev || st.Ino != e.ino {
		delete(c.m, path)
		syscall.Close(e.fd)
		return false, nil
	}
	return true, addRule(rulesetFD, path, e.fd, rightsOn(e.dir, rights))
}

// keep takes descriptor fd of path, whose status is st, into the cache and reports whether it
// did (the caller then must not close fd).
func (c *pathCache) keep(path string, fd int, st *syscall.Stat_t) bool {
	if unix.Major(st.Dev) == 0 {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[path]; ok || len(c.m) >= maxCachedPaths {
		return false
	}
	c.m[path] = cachedPath{fd: fd, dev: st.Dev, ino: st.Ino, dir: st.Mode&syscall.S_IFMT == syscall.S_IFDIR}
	return true
}

package connpool

import (
	"strings"
	"sync"
)

// ring is a bounded byte buffer that keeps the last cap bytes written to it:
// the tail of a server's stderr, for error messages. It is safe for
// concurrent use.
type ring struct {
	mu   sync.Mutex
	buf  []byte
	size int
	full bool
	pos  int
}

func newRing(size int) *ring { return &ring{buf: make([]byte, size), size: size} }

// Write implements io.Writer; it never fails.
func (r *ring) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(p)
	if r.size == 0 {
		return n, nil
	}
	if len(p) >= r.size {
		copy(r.buf, p[len(p)-r.size:])
		r.pos, r.full = 0, true
		return n, nil
	}
	c := copy(r.buf[r.pos:], p)
	if c < len(p) {
		copy(r.buf, p[c:])
		r.full = true
	}
	r.pos = (r.pos + len(p)) % r.size
	if r.pos == 0 && len(p) > 0 {
		r.full = true
	}
	return n, nil
}

// String returns the buffered tail, oldest byte first, with surrounding
// whitespace trimmed.
func (r *ring) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var s string
	if r.full {
		s = string(r.buf[r.pos:]) + string(r.buf[:r.pos])
	} else {
		s = string(r.buf[:r.pos])
	}
	return strings.TrimSpace(s)
}

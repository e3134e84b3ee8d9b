package mcpcap

// listing caches one listing (resources, prompts, skills) of the current connection. c.mu guards
// it. drop discards the value and counts the drop, so a listing that was in flight across a drop
// (a list_changed, a reconnect) is returned to its caller but not cached: the change it missed
// is never lost.
type listing[T any] struct {
	val   T
	ok    bool
	drops uint64
}

// drop discards the cached value. c.mu is held.
func (l *listing[T]) drop() {
	var zero T
	l.val, l.ok = zero, false
	l.drops++
}

// get returns the cached value. c.mu is held.
func (l *listing[T]) get() (T, bool) { return l.val, l.ok }

// cachedListing returns l's value, calling fetch on a miss. The result is cached only if cn is
// still the current connection and l was not dropped while fetch ran.
func cachedListing[T any](c *Cap, cn *conn, l *listing[T], fetch func() (T, error)) (T, error) {
	c.mu.Lock()
	v, ok := l.get()
	drops := l.drops
	c.mu.Unlock()
	if ok {
		return v, nil
	}
	v, err := fetch()
	if err != nil {
		return v, err
	}
	c.mu.Lock()
	if c.cur.Load() == cn && l.drops == drops {
		l.val, l.ok = v, true
	}
	c.mu.Unlock()
	return v, nil
}

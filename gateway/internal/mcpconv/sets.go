package mcpconv

import (
	"hash/maphash"
	"maps"
	"runtime"
	"sync"
	"unique"
	"weak"
)

// Set is what a session's server holds of one kind: each item's key and wire form.
type Set map[string]unique.Handle[string]

// Sets holds one Set per content, so that sessions serving the same items hold one index of
// them rather than one each. Like Shared it holds them weakly, and nobody may change a set
// after Share. The zero Sets is ready; it is safe for concurrent use.
type Sets struct {
	mu   sync.Mutex
	once sync.Once
	seed maphash.Seed
	m    map[uint64][]weak.Pointer[Set] // by the content's hash
}

// Share returns the set of set's content: one already shared if it is still held, else set,
// which becomes the content's. An empty set is nil.
func (s *Sets) Share(set Set) *Set {
	if len(set) == 0 {
		return nil
	}
	s.once.Do(func() { s.seed = maphash.MakeSeed() })
	h := s.hash(set)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, w := range s.m[h] {
		if held := w.Value(); held != nil && maps.Equal(*held, set) {
			return held
		}
	}
	if s.m == nil {
		s.m = map[uint64][]weak.Pointer[Set]{}
	}
	p := &set
	w := weak.Make(p)
	s.m[h] = append(s.m[h], w)
	runtime.AddCleanup(p, s.forget, setOf{h, w})
	return p
}

// hash is the same for the same content in any order: the sum of each item's hash.
func (s *Sets) hash(set Set) uint64 {
	var sum uint64
	var mh maphash.Hash
	mh.SetSeed(s.seed)
	for k, fp := range set {
		mh.Reset()
		mh.WriteString(k)
		mh.WriteByte(0)
		mh.WriteString(fp.Value())
		sum += mh.Sum64()
	}
	return sum
}

// setOf is what a cleanup is given: the content's hash and the pointer shared under it.
type setOf struct {
	h uint64
	w weak.Pointer[Set]
}

// forget drops a collected set.
func (s *Sets) forget(f setOf) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ws := s.m[f.h]
	for i, w := range ws {
		if w == f.w {
			ws = append(ws[:i], ws[i+1:]...)
			break
		}
	}
	if len(ws) == 0 {
		delete(s.m, f.h)
	} else {
		s.m[f.h] = ws
	}
}

// Len returns how many sets are held.
func (s *Sets) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, ws := range s.m {
		n += len(ws)
	}
	return n
}

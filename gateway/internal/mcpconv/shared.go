package mcpconv

import (
	"runtime"
	"sync"
	"unique"
	"weak"
)

// Shared holds one item per wire form (its JSON, interned), so that sessions serving the same
// tool, prompt, resource or template hold one copy of it rather than one each. It holds the
// items weakly: an item no session holds any more is forgotten. The items are shared, so
// nobody may change one after Share. The zero Shared is ready; it is safe for concurrent use.
type Shared[T any] struct {
	mu sync.Mutex
	m  map[unique.Handle[string]]weak.Pointer[T]
}

// Share returns the item of wire form fp: one already shared if it is still held, else item,
// which becomes the form's.
func (s *Shared[T]) Share(fp unique.Handle[string], item *T) *T {
	s.mu.Lock()
	defer s.mu.Unlock()
	if held := s.m[fp].Value(); held != nil {
		return held
	}
	if s.m == nil {
		s.m = map[unique.Handle[string]]weak.Pointer[T]{}
	}
	w := weak.Make(item)
	s.m[fp] = w
	runtime.AddCleanup(item, s.forget, formOf[T]{fp, w})
	return item
}

// formOf is what a cleanup is given: the form and the pointer it was shared under.
type formOf[T any] struct {
	fp unique.Handle[string]
	w  weak.Pointer[T]
}

// forget drops a collected item's form, unless another item took the form since.
func (s *Shared[T]) forget(f formOf[T]) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m[f.fp] == f.w {
		delete(s.m, f.fp)
	}
}

// Len returns how many forms are held.
func (s *Shared[T]) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}

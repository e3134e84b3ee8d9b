package view

import (
	"reflect"
	"sync"
)

// sharedSets is how many lists of each kind a Cache keeps for scopes to share: the lists of
// its most recent distinct compiles.
const sharedSets = 8

// listSet is a view's list of one kind (tools, commands) and the index into it.
type listSet[T any] struct {
	list  []T
	index map[string]*T
}

// listSets are the lists of one kind a Cache's views share. Every session of a path sees, as
// a rule, the same tools and commands, so a view compiled with the list of a recent one takes
// that one's list and index in place of its own, and a thousand sessions hold one list. Views
// never change their lists, which is what makes sharing safe.
type listSets[T any] struct {
	mu   sync.Mutex
	sets []listSet[T] // most recently matched first
}

// share replaces *list and *index with those of a recent view whose list is the same (same),
// when there is one, and else keeps them for the next views.
func (s *listSets[T]) share(list *[]T, index *map[string]*T, same func(a, b []T) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, set := range s.sets {
		if same(set.list, *list) {
			*list, *index = set.list, set.index
			copy(s.sets[1:i+1], s.sets[:i])
			s.sets[0] = set
			return
		}
	}
	if len(s.sets) < sharedSets {
		s.sets = append(s.sets, listSet[T]{})
	}
	copy(s.sets[1:], s.sets)
	s.sets[0] = listSet[T]{*list, *index}
}

// sameTools reports whether a and b are the same tools from the same capabilities.
func sameTools(a, b []Tool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.Name != y.Name || x.Qualified != y.Qualified || x.Capability != y.Capability ||
			x.Level != y.Level || x.local != y.local || !sameInstance(x.provider, y.provider) ||
			!reflect.DeepEqual(x.Origin, y.Origin) || !reflect.DeepEqual(x.Entry, y.Entry) {
			return false
		}
	}
	return true
}

// sameCommands reports whether a and b are the same commands from the same capabilities: a
// view's index of its commands is made from these alone.
func sameCommands(a, b []Command) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.Capability != y.Capability || x.local != y.local || !sameInstance(x.source, y.source) ||
			!reflect.DeepEqual(x.Origin, y.Origin) || !reflect.DeepEqual(x.CommandEntry, y.CommandEntry) {
			return false
		}
	}
	return true
}

// sameInstance reports whether x and y are the same capability instance.
func sameInstance(x, y any) bool {
	tx, ty := reflect.TypeOf(x), reflect.TypeOf(y)
	return tx == ty && tx != nil && tx.Comparable() && x == y
}

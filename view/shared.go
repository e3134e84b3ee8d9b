package view

import (
	"reflect"
	"sync"
)

// sharedToolSets is how many tool lists a Cache keeps for scopes to share: the lists of its
// most recent distinct compiles.
const sharedToolSets = 8

// toolSet is a view's tools: the sorted list and the index into it.
type toolSet struct {
	list   []Tool
	byName map[string]*Tool
}

// toolSets are the tool lists a Cache's views share. Every session of a path sees, as a rule,
// the same tools, so a view compiled with the tools of a recent one takes that one's list and
// index in place of its own, and a thousand sessions hold one list. Views never change their
// lists, which is what makes sharing safe.
type toolSets struct {
	mu   sync.Mutex
	sets []toolSet // most recently matched first
}

// share gives v the list of a recent view with the same tools, when there is one.
func (s *toolSets) share(v *View) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, set := range s.sets {
		if sameTools(set.list, v.Tools) {
			v.Tools, v.tools = set.list, set.byName
			copy(s.sets[1:i+1], s.sets[:i])
			s.sets[0] = set
			return
		}
	}
	if len(s.sets) < sharedToolSets {
		s.sets = append(s.sets, toolSet{})
	}
	copy(s.sets[1:], s.sets)
	s.sets[0] = toolSet{v.Tools, v.tools}
}

// sameTools reports whether a and b are the same tools from the same capabilities.
func sameTools(a, b []Tool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.Name != y.Name || x.Qualified != y.Qualified || x.Capability != y.Capability ||
			x.Level != y.Level || x.local != y.local || !sameProvider(x, y) ||
			!reflect.DeepEqual(x.Origin, y.Origin) || !reflect.DeepEqual(x.Entry, y.Entry) {
			return false
		}
	}
	return true
}

// sameProvider reports whether x and y are served by the same capability instance.
func sameProvider(x, y *Tool) bool {
	tx, ty := reflect.TypeOf(x.provider), reflect.TypeOf(y.provider)
	return tx == ty && tx != nil && tx.Comparable() && x.provider == y.provider
}

package mcpconv

import (
	"runtime"
	"testing"
	"unique"

	"github.com/agentpool/agentpool/internal/testwait"
)

// Sets with the same items are one set, whatever order they were built in; a set no session
// holds any more is forgotten.
func TestSetsOneSetPerContent(t *testing.T) {
	var sets Sets
	a, b := unique.Make(`{"name":"a"}`), unique.Make(`{"name":"b"}`)
	first := sets.Share(Set{"a": a, "b": b})
	second := sets.Share(Set{"b": b, "a": a})
	if first != second {
		t.Errorf("two sets of the same items: %p and %p, want one", first, second)
	}
	other := sets.Share(Set{"a": b, "b": a})
	if other == first {
		t.Error("a set of other items shared with the first")
	}
	if got := sets.Share(nil); got != nil || sets.Share(Set{}) != nil {
		t.Errorf("an empty set shared as %p, want nil", got)
	}
	if len(*first) != 2 || (*first)["a"] != a {
		t.Errorf("shared set holds %v", *first)
	}
	runtime.KeepAlive(first)
	runtime.KeepAlive(other)
	first, second, other = nil, nil, nil
	testwait.For(t, "sets no session holds forgotten", func() bool {
		runtime.GC()
		return sets.Len() == 0
	})
}

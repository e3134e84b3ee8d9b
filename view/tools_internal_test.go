package view

import (
	"testing"

	"github.com/agentpool/agentpool/ext"
)

// A view holds each tool once: the tool found by name is the one listed, not a copy, so a
// session's view costs one Tool per tool.
func TestToolsHeldOnce(t *testing.T) {
	byName := map[string]*Tool{}
	for _, q := range []string{"b__two", "a__one", "c__three"} {
		byName[q] = &Tool{Name: q, Entry: ext.ToolEntry{Name: q}}
	}
	var v View
	v.nameTools(byName, nil)
	if len(v.Tools) != 3 || len(v.tools) != 3 {
		t.Fatalf("tools %d listed, %d by name; want 3", len(v.Tools), len(v.tools))
	}
	for i := range v.Tools {
		if i > 0 && v.Tools[i-1].Name >= v.Tools[i].Name {
			t.Errorf("tools not sorted: %q before %q", v.Tools[i-1].Name, v.Tools[i].Name)
		}
		if v.tools[v.Tools[i].Name] != &v.Tools[i] {
			t.Errorf("tool %q by name is a copy of the listed one", v.Tools[i].Name)
		}
	}
}

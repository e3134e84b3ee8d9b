package host

import (
	"path/filepath"
	"testing"
)

// A reader may append to State.Servers (to add an agent's servers, say) without writing into
// the published state: two readers appending at once must not share a backing array.
func TestStateServersAppendCopies(t *testing.T) {
	dir := t.TempDir()
	h := buildHost(t, filepath.Join(dir, "agentpool.yaml"), `mcp_servers:
  a: {command: /nonexistent/a, lazy: true, tools: [{name: x}]}
  b: {command: /nonexistent/b, lazy: true, tools: [{name: x}]}
  c: {command: /nonexistent/c, lazy: true, tools: [{name: x}]}
`, Options{})
	s := h.Current().Servers
	if len(s) != 3 {
		t.Fatalf("%d servers, want 3", len(s))
	}
	if cap(s) != len(s) {
		t.Errorf("State.Servers has spare capacity (len %d, cap %d): an append by one reader writes into what every reader shares", len(s), cap(s))
	}
}

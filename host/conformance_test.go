package host

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/ext/exttest"
	"github.com/agentpool/agentpool/internal/testserver"
)

// A skill's own MCP server as the host hands it to the skill manager (skillChild) keeps the
// capability lifecycle contract, and closing it forgets its composition edge.
func TestSkillChildConformance(t *testing.T) {
	bin := testserver.Build(t)
	exttest.TestCapability(t, func(t *testing.T) ext.Capability {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "skills/ops/SKILL.md"),
			"---\nname: ops\ndescription: Ops.\nmcp-servers:\n  srv:\n    command: "+bin+"\n---\nBody.\n")
		h := buildHost(t, filepath.Join(dir, "agentpool.yaml"), "skills: {dirs: [skills], watch: false}\n", Options{})
		ss := openSkills(t, h, "s1")
		if _, err := ss.Tools(context.Background()); err != nil {
			t.Fatal(err)
		}
		kids := ss.Children()
		if len(kids) != 1 {
			t.Fatalf("children = %v, want the skill's server", kids)
		}
		child := kids[0].(*skillChild)
		t.Cleanup(func() {
			if h.recordedChild(child) {
				t.Error("a closed skill server's composition edge is still recorded")
			}
		})
		return child
	}, &exttest.Options{
		Tool:        &ext.ToolCall{Name: "echo", Arguments: json.RawMessage(`{"text":"x"}`)},
		ResourceURI: "test://static/hello",
		Command:     &ext.CommandRequest{Name: "ops.srv:greet", Args: []string{"ann"}},
		Released: func(c ext.Capability) error {
			if h := c.(*skillChild).h; h.recordedChild(c) {
				return fmt.Errorf("closed, but its composition edge is still recorded")
			}
			return nil
		},
	})
}

package agent_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/agent"
)

// The reference server's own instructions reach the model in the static part, labelled with
// their origin, after the agent's own, and byte-identical from turn to turn.
func TestUpstreamInstructionsLabelled(t *testing.T) {
	bin, err := filepath.Abs(filepath.Join("..", "testdata", "npm", "node_modules", ".bin", "mcp-server-everything"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s missing: run make test (npm ci --prefix testdata/npm): %v", bin, err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node not found: %v", err)
	}
	f := newFixture(t, "mcp_servers:\n  everything: {command: "+bin+", args: [stdio]}\n")
	f.session(t, "s1")
	m := newScript(answer("1"), answer("2"))
	a := f.agent(t, m)
	for range 2 {
		if _, err := a.Run(context.Background(), &agent.Input{Prompt: "hi"}); err != nil {
			t.Fatal(err)
		}
	}
	r := m.requests()
	s := r[0].Instructions.Static
	if !strings.Contains(s, `<instructions from="mcp://everything">`+"\n# Everything Server") || !strings.HasSuffix(strings.TrimSpace(s), "</instructions>") {
		t.Errorf("static = %.300q…", s)
	}
	if r[1].Instructions.Static != s {
		t.Error("static changed between turns")
	}
	if !toolNames(r[0])["everything__echo"] {
		t.Errorf("tools = %v", toolNames(r[0]))
	}
}

package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/skill"
)

// read_resource of skill://hello_world, for a skill named hello-world, is an error that names
// skill://hello-world, the hint load_skill gives for the name; the skill is not read in its
// place.
func TestReadResourceMistypedSkillHint(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "hello-world"), 0o755); err != nil {
		t.Fatal(err)
	}
	md := "---\nname: hello-world\ndescription: Greets.\n---\nHello body.\n"
	if err := os.WriteFile(filepath.Join(root, "hello-world", "SKILL.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	sm, err := skill.NewManager(&skill.Options{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sm.Close(context.Background()) })
	m := newScript(call("read_resource", `{"uri":"skill://hello_world"}`), answer("ok"))
	a, _ := setup(t, m, &agent.Options{}, sm)
	res, err := a.Run(context.Background(), &agent.Input{Prompt: "read"})
	if err != nil {
		t.Fatal(err)
	}
	got := res.Messages[2].Text()
	if !strings.Contains(got, "did you mean skill://hello-world?") || strings.Contains(got, "Hello body.") {
		t.Errorf("read_resource skill://hello_world = %q; want an error naming skill://hello-world", got)
	}
}

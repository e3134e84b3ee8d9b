package agent_test

import (
	"context"
	"testing"

	"github.com/agentpool/agentpool/agent"
)

// TestReadResourceSkillName: the read_resource tool reads skill://<name> as the skill's
// SKILL.md, through a real host's skill manager, as it reads skill://<name>/SKILL.md.
func TestReadResourceSkillName(t *testing.T) {
	f := newFixture(t, "skills: {dirs: [skills], watch: false}\n", func(f *fixture) {
		f.writeSkill(t, "my-skill", "description: Mine.\n", "MY BODY")
	})
	f.session(t, "s1")
	var got []agent.Message
	m := newScript(
		call("read_resource", `{"uri":"skill://my-skill"}`, "read_resource", `{"uri":"skill://my-skill/SKILL.md"}`),
		func(req *agent.Request) (*agent.Response, error) {
			got = req.Messages[len(req.Messages)-2:]
			return &agent.Response{Text: "done"}, nil
		})
	if _, err := f.agent(t, m).Run(context.Background(), &agent.Input{Prompt: "read"}); err != nil {
		t.Fatal(err)
	}
	want := "---\nname: my-skill\ndescription: Mine.\n---\nMY BODY\n"
	for i, uri := range []string{"skill://my-skill", "skill://my-skill/SKILL.md"} {
		if m := got[i]; m.IsError || m.Text() != want {
			t.Errorf("read_resource %s = %+v, want the SKILL.md", uri, m)
		}
	}
}

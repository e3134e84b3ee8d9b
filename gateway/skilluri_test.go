package gateway_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestReadSkillByName: resources/read of skill://<name>, with or without a trailing slash,
// returns the skill's SKILL.md, as skill://<name>/SKILL.md does.
func TestReadSkillByName(t *testing.T) {
	f := newFixture(t, nil)
	cs, _ := connect(t, f.url, nil)
	for _, uri := range []string{"skill://greet", "skill://greet/", "skill://greet/SKILL.md"} {
		rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Errorf("read %s: %v", uri, err)
			continue
		}
		if len(rr.Contents) != 1 || !strings.Contains(rr.Contents[0].Text, "Say hello to $ARGUMENTS.") {
			t.Errorf("read %s = %+v, want the skill's SKILL.md", uri, rr.Contents)
		}
	}
}

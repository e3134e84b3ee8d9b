package agentpool_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentpool/agentpool/command"
	"github.com/agentpool/agentpool/skill"
)

// TestAllowedToolsReadOneWay: a SKILL.md and a command file holding the same allowed-tools line
// give the same tools. Both read it through package frontmatter; before that, command files split
// "Bash(git diff:*) Read" into three tools.
func TestAllowedToolsReadOneWay(t *testing.T) {
	tests := []struct {
		line string
		want []string
	}{
		{"allowed-tools: Bash(git diff:*) Read", []string{"Bash(git diff:*)", "Read"}},
		{"allowed-tools: Bash(git add:*), Read", []string{"Bash(git add:*)", "Read"}},
		{"allowed-tools: \"Bash(git diff:*) Read\"", []string{"Bash(git diff:*)", "Read"}},
		{"allowed-tools:\n  - Bash(git diff:*)\n  - Read", []string{"Bash(git diff:*)", "Read"}},
		{"allowed-tools: [Read, \"Bash(a b)\"]", []string{"Read", "Bash(a b)"}},
	}
	root := t.TempDir()
	for i, tt := range tests {
		front := fmt.Sprintf("---\nname: s%d\ndescription: d\n%s\n---\nbody\n", i, tt.line)
		sk, diags := skill.ParseSkill(filepath.Join(root, fmt.Sprintf("s%d", i), "SKILL.md"), []byte(front))
		if sk == nil {
			t.Fatalf("%q: skill not parsed: %v", tt.line, diags)
		}
		if diff := cmp.Diff(tt.want, sk.AllowedTools); diff != "" {
			t.Errorf("%q: skill allowed-tools (-want +got):\n%s", tt.line, diff)
		}
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("c%d.md", i)), []byte(front), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src, err := command.NewFileSource([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close(context.Background())
	for i, tt := range tests {
		c, ok := src.Command(fmt.Sprintf("c%d", i))
		if !ok {
			t.Fatalf("command c%d not found; diagnostics %v", i, src.Diagnostics())
		}
		if diff := cmp.Diff(tt.want, c.AllowedTools); diff != "" {
			t.Errorf("%q: command allowed-tools (-want +got):\n%s", tt.line, diff)
		}
	}
}

package skill

import (
	"context"
	"testing"

	"github.com/agentpool/agentpool/ext"
)

// TestCommandTemplates checks which skill bodies are templates: those whose frontmatter declares
// arguments or argument-hint, or whose body uses $ARGUMENTS outside fenced code. Every other body
// is returned byte for byte, with the arguments appended when there are any.
func TestCommandTemplates(t *testing.T) {
	root := t.TempDir()
	const prose = "Prices: $10.00, $5.00.\nRun awk '{print $1}' on $2.\n```\n$ARGUMENTS\n```"
	write(t, root, "plain/SKILL.md", skillMD("name: plain\ndescription: Not a template.\n", prose))
	write(t, root, "hint/SKILL.md", skillMD("name: hint\ndescription: Hinted.\nargument-hint: \"[file]\"\n", "Read $1 for $10.00."))
	write(t, root, "emptyhint/SKILL.md", skillMD("name: emptyhint\ndescription: Hinted, empty.\nargument-hint:\n", "Read $1."))
	write(t, root, "declared/SKILL.md", skillMD("name: declared\ndescription: Declares arguments.\narguments: [file]\n", "Read $1."))
	write(t, root, "uses/SKILL.md", skillMD("name: uses\ndescription: Uses $ARGUMENTS.\n", "Do $ARGUMENTS[0] then $2; costs $5.00."))
	write(t, root, "escaped/SKILL.md", skillMD("name: escaped\ndescription: Escapes it.\n", `Write \$ARGUMENTS and $1.`))
	write(t, root, "static/SKILL.md", skillMD("name: static\ndescription: Hinted, no placeholder.\nargument-hint: x\n", "Just do it."))
	m := newTestManager(t, &Options{Roots: []string{root}})
	ctx := context.Background()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"plain", []string{"x", "y"}, prose + "\n\nUser arguments: x y"},
		{"plain", nil, prose},
		{"plain", []string{}, prose},
		{"hint", []string{"a.go"}, "Read a.go for $10.00."},
		{"emptyhint", []string{"a.go"}, "Read a.go."},
		{"declared", []string{"a.go"}, "Read a.go."},
		{"uses", []string{"a", "b"}, "Do a then b; costs $5.00."},
		{"uses", nil, "Do  then ; costs $5.00."},
		{"escaped", []string{"a"}, `Write \$ARGUMENTS and $1.` + "\n\nUser arguments: a"},
		{"static", []string{"a"}, "Just do it.\n\nUser arguments: a"},
		{"static", nil, "Just do it."},
	}
	for _, tt := range tests {
		got, err := m.GetCommand(ctx, &ext.CommandRequest{Name: tt.name, Args: tt.args})
		if err != nil || got.Text() != tt.want {
			t.Errorf("GetCommand(%s, %q) = %q, %v; want %q", tt.name, tt.args, got.Text(), err, tt.want)
		}
	}
	// Named["arguments"] (an MCP prompt's line) follows the same rule.
	got, err := m.GetCommand(ctx, &ext.CommandRequest{Name: "plain", Named: map[string]string{"arguments": `"a b" c`}})
	if err != nil || got.Text() != prose+"\n\nUser arguments: a b c" {
		t.Errorf("GetCommand(plain, named) = %q, %v", got.Text(), err)
	}
}

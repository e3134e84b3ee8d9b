package frontmatter

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAllowedTools(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want []string
		err  string // part of the error; "" for none
	}{
		{"absent value", nil, nil, ""},
		{"space-separated", "Bash(git diff:*) Read", []string{"Bash(git diff:*)", "Read"}, ""},
		{"comma-separated", "Bash(git add:*), Read,Write", []string{"Bash(git add:*)", "Read", "Write"}, ""},
		{"mixed blanks", " Read\tWrite\n Edit ", []string{"Read", "Write", "Edit"}, ""},
		{"commas and spaces inside parentheses", "Bash(a, b c) mcp__x__y", []string{"Bash(a, b c)", "mcp__x__y"}, ""},
		{"unbalanced parenthesis", "Bash(git diff:* Read", []string{"Bash(git diff:* Read"}, ""},
		{"stray closing parenthesis", "a) b", []string{"a)", "b"}, ""},
		{"empty string", "", []string{}, ""},
		{"list", []any{"Read", " Bash(git:*) ", ""}, []string{"Read", "Bash(git:*)"}, ""},
		{"list entry with spaces stays whole", []any{"Bash(git diff:*) Read"}, []string{"Bash(git diff:*) Read"}, ""},
		{"list of scalars", []any{1, true}, []string{"1", "true"}, ""},
		{"list with a nested list", []any{"Read", []any{"x"}, map[string]any{"a": "b"}}, []string{"Read"}, "entry 2 is a list, entry 3 is a mapping"},
		{"number", 42, []string{"42"}, ""},
		{"mapping", map[string]any{"Read": true}, nil, "is a mapping"},
	}
	for _, tt := range tests {
		got, err := AllowedTools(tt.v)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: AllowedTools(%#v) (-want +got):\n%s", tt.name, tt.v, diff)
		}
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%s: AllowedTools(%#v) error %v", tt.name, tt.v, err)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%s: AllowedTools(%#v) error %v, want one containing %q", tt.name, tt.v, err, tt.err)
		}
	}
}

// TestAllowedToolsFromYAML reads the two forms as a file writes them.
func TestAllowedToolsFromYAML(t *testing.T) {
	for _, y := range []string{
		"allowed-tools: Bash(git diff:*) Read\n",
		"allowed-tools: \"Bash(git diff:*), Read\"\n",
		"allowed-tools:\n  - Bash(git diff:*)\n  - Read\n",
		"allowed-tools: [\"Bash(git diff:*)\", Read]\n",
	} {
		fm, ds := Parse("f.md", []byte(y))
		if fm == nil {
			t.Fatalf("Parse(%q): %v", y, ds)
		}
		got, err := AllowedTools(fm.Values["allowed-tools"])
		if err != nil || !cmp.Equal(got, []string{"Bash(git diff:*)", "Read"}) {
			t.Errorf("%q: AllowedTools = %q, %v", y, got, err)
		}
	}
}

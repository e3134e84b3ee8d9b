package skill

import (
	"fmt"
	"strings"
	"testing"
)

// billionLaughs returns a SKILL.md of a few hundred bytes whose YAML aliases expand to 9^levels
// strings under key (a "billion laughs" frontmatter).
func billionLaughs(levels int, key string) string {
	var b strings.Builder
	b.WriteString("---\nname: bomb\ndescription: d\nl0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i < levels; i++ {
		a := fmt.Sprintf("*a%d", i-1)
		fmt.Fprintf(&b, "l%d: &a%d [%s]\n", i, i, strings.Repeat(a+", ", 8)+a)
	}
	fmt.Fprintf(&b, "%s\n---\nbody\n", fmt.Sprintf(key, levels-1))
	return b.String()
}

// TestAliasBombRefused: values are turned into strings (metadata, allowed-tools, MCP server
// args) and declarations into JSON fingerprints, each of which expands aliases. A small
// frontmatter expanding to millions of values must be refused, not expanded.
func TestAliasBombRefused(t *testing.T) {
	for _, key := range []string{"metadata:\n  k: *a%d", "allowed-tools: *a%d", "hooks: *a%d",
		"mcp-servers:\n  s:\n    command: x\n    args: *a%d"} {
		data := billionLaughs(7, key) // 9^7 = 4.8 million strings
		s, diags := ParseSkill("/skills/bomb/SKILL.md", []byte(data))
		if s != nil {
			t.Errorf("%d-byte frontmatter expanding to 4.8 million values accepted (%s)", len(data), key)
		}
		found := false
		for _, d := range diags {
			found = found || d.Severity == SeverityError && strings.Contains(d.Message, "alias")
		}
		if !found {
			t.Errorf("no error diagnostic naming aliases: %v", diags)
		}
	}
	// Aliases within reason still work.
	s, diags := ParseSkill("/skills/ok/SKILL.md", []byte("---\nname: ok\ndescription: d\nx: &x [a, b]\nallowed-tools: *x\n---\n"))
	if s == nil || len(s.AllowedTools) != 2 {
		t.Fatalf("small alias refused: %+v %v", s, diags)
	}
}

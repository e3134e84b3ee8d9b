package skill

import (
	"path/filepath"
	"testing"
)

// TestRelativePaths: `skills validate .`, `skills validate SKILL.md` and a relative skill root
// read a SKILL.md inside its folder, plain or a symlink to a file beside it, and its mcp.json:
// the inside check
// compares absolute paths (a relative path resolved to itself was taken for one leading out,
// "SKILL.md is a symlink leading outside the skill folder").
func TestRelativePaths(t *testing.T) {
	base := t.TempDir()
	write(t, base, "plain/SKILL.md", skillMD("name: plain\ndescription: d\n", "Body"))
	write(t, base, "plain/mcp.json", `{"mcpServers": {"files": {"command": "files-server"}}}`)
	write(t, base, "linked/real.md", skillMD("name: linked\ndescription: d\n", "Body"))
	symlink(t, "real.md", filepath.Join(base, "linked", "SKILL.md"))
	for _, name := range []string{"plain", "linked"} {
		t.Chdir(filepath.Join(base, name))
		for _, p := range []string{"SKILL.md", ".", filepath.Join("..", name)} {
			if diags, err := Validate(p); err != nil || len(diags) != 0 {
				t.Errorf("%s: Validate(%s) = %s %v, want valid", name, p, diagList(diags), err)
			}
		}
	}
	t.Chdir(base)
	skills, diags := Discover([]string{"."}, nil)
	if len(skills) != 2 || len(diags) != 0 {
		t.Errorf("Discover(.) = %d skills, %s; want plain and linked", len(skills), diagList(diags))
	}
	for _, s := range skills {
		if s.Name == "plain" && len(s.Servers) != 1 {
			t.Errorf("plain's mcp.json under a relative root: servers %v", s.Servers)
		}
	}
}

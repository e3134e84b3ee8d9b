package skill

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSkillFileSwappedForLink: a SKILL.md that the walk saw as a regular file (linked false)
// and that is a symlink leading out by the time it is opened is refused, not read: the walk's
// view of the folder is no guarantee at the open.
func TestSkillFileSwappedForLink(t *testing.T) {
	base := t.TempDir()
	secret := write(t, base, "outside/SKILL.md", skillMD("name: secret\ndescription: Outside.\n", "Body"))
	dir := filepath.Join(base, "s")
	symlink(t, secret, filepath.Join(dir, "SKILL.md"))
	buf := make([]byte, maxHeadSize)
	head, _, _, err := readSkillHead(filepath.Join(dir, "SKILL.md"), dir, buf)
	if err == nil || !strings.Contains(err.Error(), "outside the skill folder") || strings.Contains(string(head), "secret") {
		t.Errorf("readSkillHead of a SKILL.md swapped for a link out = %q, %v; want refused", head, err)
	}
}

// TestLinkRepointedAfterCheck: a symlinked SKILL.md or mcp.json checked to lead inside its
// skill, whose target is swapped for a link outside before the open, is refused, not read.
func TestLinkRepointedAfterCheck(t *testing.T) {
	base := t.TempDir()
	secret := write(t, base, "outside/secret.md", skillMD("name: secret\ndescription: Outside.\n", "Body"))
	dir := filepath.Join(base, "s")
	for _, name := range []string{"SKILL.md", "mcp.json"} {
		inner := write(t, dir, "real-"+name, skillMD("name: s\ndescription: Inside.\n", "Body"))
		link := filepath.Join(dir, name)
		symlink(t, inner, link)
		openInsideHook = func() {
			os.Remove(inner)
			symlink(t, secret, inner)
		}
		f, err := openInside(link, dir)
		openInsideHook = nil
		if err == nil {
			f.Close()
			t.Errorf("%s re-pointed outside between the check and the open was opened", name)
		} else if !strings.Contains(err.Error(), "outside the skill folder") || strings.Contains(err.Error(), secret) {
			t.Errorf("%s re-pointed outside: %v, want refused without naming the target", name, err)
		}
	}
}

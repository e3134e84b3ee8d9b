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

// TestConfinedFolderSwappedForLink: with Confine, a folder checked to lie inside the confining
// folder and swapped for a symlink out of it before it is listed is not listed: nothing of the
// folder it leads to is walked or named in a diagnostic.
func TestConfinedFolderSwappedForLink(t *testing.T) {
	base := t.TempDir()
	proj := filepath.Join(base, "proj")
	write(t, base, "outside/leak/SKILL.md", skillMD("name: leak\ndescription: Outside.\n", "Body"))
	write(t, proj, "skills/own/SKILL.md", skillMD("name: own\ndescription: Inside.\n", "Body"))
	a := filepath.Join(proj, "skills", "a")
	if err := os.MkdirAll(a, 0o755); err != nil {
		t.Fatal(err)
	}
	realA, err := filepath.EvalSymlinks(a)
	if err != nil {
		t.Fatal(err)
	}
	readDirHook = func(dir string) {
		if dir == realA {
			os.Remove(a)
			symlink(t, filepath.Join(base, "outside"), a)
		}
	}
	defer func() { readDirHook = nil }()
	skills, diags := Discover([]string{filepath.Join(proj, "skills")}, &DiscoverOptions{Confine: proj})
	for _, s := range skills {
		if s.Name == "leak" {
			t.Errorf("the skill outside the confining folder was loaded")
		}
	}
	for _, d := range diags {
		if strings.Contains(d.Path, "leak") || strings.Contains(d.Message, "leak") {
			t.Errorf("a diagnostic names what lies outside the confining folder: %v", d)
		}
	}
}

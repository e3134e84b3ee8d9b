package host

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentpool/agentpool/internal/testwait"
)

// TestZeroOptionsWatchAndUseDefaultRoots: zero Options are what the config's defaults are
// (skills.watch true): a skill added after Build is seen without a reload, and the user's
// conventional skill folder under HomeDir is a root; NoWatch and NoDefaultRoots turn them off.
func TestZeroOptionsWatchAndUseDefaultRoots(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	writeSkill := func(root, name string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(root, name), 0o755); err != nil {
			t.Fatal(err)
		}
		md := "---\nname: " + name + "\ndescription: d\n---\nbody\n"
		if err := os.WriteFile(filepath.Join(root, name, "SKILL.md"), []byte(md), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeSkill(filepath.Join(home, ".agents", "skills"), "mine")
	if err := os.MkdirAll(filepath.Join(dir, "skills"), 0o755); err != nil {
		t.Fatal(err)
	}
	yaml := "skills:\n  dirs: [skills]\n  debounce: 20ms\n"
	h := buildHost(t, filepath.Join(dir, "agentpool.yaml"), yaml, Options{HomeDir: home})
	if h.Current().Skills.Skill("mine") == nil {
		t.Error("zero Options: the user's ~/.agents/skills is not a root")
	}
	writeSkill(filepath.Join(dir, "skills"), "later")
	testwait.For(t, "the skill added after Build to be seen", func() bool { return h.Current().Skills.Skill("later") != nil })

	off := buildHost(t, filepath.Join(dir, "agentpool.yaml"), yaml, Options{HomeDir: home, NoWatch: true, NoDefaultRoots: true})
	if off.Current().Skills.Skill("mine") != nil {
		t.Error("NoDefaultRoots: the user's skill folder is still a root")
	}
	if off.opts.watching() {
		t.Error("NoWatch: the host watches")
	}
}

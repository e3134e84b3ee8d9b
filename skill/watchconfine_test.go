//go:build unix

package skill

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/testwait"
)

// watchedUnder returns the folders m's watcher watches whose real path is dir or below it.
func watchedUnder(m *Manager, dir string) []string {
	var out []string
	for _, d := range m.watcher.Watched() {
		if real, err := filepath.EvalSymlinks(d); err == nil && within(real, dir) {
			out = append(out, d)
		}
	}
	return out
}

// TestWatchStaysInside: the watcher follows symlinked folders only where discovery does. A link
// inside a skill to a big folder outside it (etcdir -> /etc), or a link in the root to an
// outside folder without a SKILL.md, adds no watch there, at start-up or when the link appears
// later; a link in the root to an outside skill folder, and a link inside a skill to its own
// subfolder, are watched.
func TestWatchStaysInside(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{"a/b/c", "d/e", "f"} {
		if err := os.MkdirAll(filepath.Join(outside, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, base, "extskill/SKILL.md", skillMD("name: extskill\ndescription: d\n", "Body"))
	write(t, base, "extskill/refs/x.md", "x")
	write(t, root, "fs/SKILL.md", skillMD("name: fs\ndescription: d\n", "Body"))
	write(t, root, "fs/refs/own/x.md", "x")
	symlink(t, outside, filepath.Join(root, "fs", "outdir"))
	symlink(t, "../../outside", filepath.Join(root, "fs", "dotdot"))
	symlink(t, "..", filepath.Join(root, "fs", "parent"))
	symlink(t, outside, filepath.Join(root, "outdir"))
	symlink(t, "refs/own", filepath.Join(root, "fs", "mine"))
	symlink(t, filepath.Join(base, "extskill"), filepath.Join(root, "extskill"))

	m := newTestManager(t, &Options{Roots: []string{root}, Watch: true, Debounce: 50 * time.Millisecond})
	if got := watchedUnder(m, outside); len(got) != 0 {
		t.Errorf("watched outside the skills: %v", got)
	}
	if got := watchedUnder(m, filepath.Join(base, "extskill")); len(got) == 0 {
		t.Errorf("the linked skill folder extskill is not watched (discovery loads it)")
	}
	// The parent link leads to the root, already watched under its own path.
	for _, d := range m.watcher.Watched() {
		if strings.Contains(d, "parent") {
			t.Errorf("a link to the skill's parent is watched: %s", d)
		}
	}

	// A link created while watching is judged the same way.
	r := record(m)
	at := r.mark()
	symlink(t, outside, filepath.Join(root, "fs", "late"))
	// The link itself may go unreported (it is skipped); a file written after it is, once the
	// watcher has handled the link's event.
	write(t, root, "fs/refs/after.md", "after")
	testwait.For(t, "a later file reported", func() bool { return len(r.since(at)) > 0 })
	if got := watchedUnder(m, outside); len(got) != 0 {
		t.Errorf("watched outside the skills after a link appeared: %v", got)
	}
}

// TestWatchFolderBudget: the watcher watches no more folders than discovery reads (MaxFolders
// per root): a skill holding a big tree (a cloned repository can) cannot take thousands of the
// user's inotify watches when discovery stops at its budget.
func TestWatchFolderBudget(t *testing.T) {
	root := t.TempDir()
	write(t, root, "big/SKILL.md", skillMD("name: big\ndescription: d\n", "Body"))
	for i := range 8 {
		for j := range 8 {
			if err := os.MkdirAll(filepath.Join(root, "big", fmt.Sprint(i), fmt.Sprint(j)), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	const budget = 20
	m := newTestManager(t, &Options{Roots: []string{root}, Watch: true, MaxFolders: budget, Debounce: 50 * time.Millisecond})
	if n := len(m.watcher.Watched()); n > budget {
		t.Errorf("%d folders watched, over the budget of %d folders per root", n, budget)
	}
	if _, err := m.ReadSkill(context.Background(), "skill://big/SKILL.md"); err != nil {
		t.Errorf("the skill itself: %v", err)
	}
}

// TestWatchConfined: with Options.Confine, the watcher follows no link out of the confining
// folder, not even to a skill folder, which discovery does not read either.
func TestWatchConfined(t *testing.T) {
	base := t.TempDir()
	proj := filepath.Join(base, "proj")
	root := filepath.Join(proj, "skills")
	write(t, base, "extskill/SKILL.md", skillMD("name: extskill\ndescription: d\n", "Body"))
	write(t, base, "extskill/refs/x.md", "x")
	write(t, root, "own/SKILL.md", skillMD("name: own\ndescription: d\n", "Body"))
	symlink(t, filepath.Join(base, "extskill"), filepath.Join(root, "extskill"))

	m := newTestManager(t, &Options{Roots: []string{root}, Watch: true, Debounce: 50 * time.Millisecond, Confine: proj})
	if got := watchedUnder(m, filepath.Join(base, "extskill")); len(got) != 0 {
		t.Errorf("watched outside the confining folder: %v", got)
	}
	if len(watchedUnder(m, root)) == 0 {
		t.Errorf("the root inside the confining folder is not watched")
	}
}

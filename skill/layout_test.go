package skill

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/testwait"
)

// Collections laid out as real ones are: skills kept under dot-folders, under .github/skills,
// deeper than the depth limit. Each skill also carries an unknown key ("x-check"), so that
// Validate reports every SKILL.md it reads and can be compared with what discovery loads.

// layoutSkill writes a skill named after its folder with an unknown key Validate reports.
func layoutSkill(t *testing.T, root, rel string) string {
	t.Helper()
	name := filepath.Base(rel)
	return write(t, root, rel+"/SKILL.md", skillMD("name: "+name+"\ndescription: Skill "+name+".\nx-check: 1\n", "Body of "+name))
}

// dotCollection writes 10 skills under .system, .curated and .experimental, as collections
// do, plus skills under .git, .hg, .svn, .bzr, .jj and node_modules that must not load.
func dotCollection(t *testing.T) (root string, want []string) {
	root = t.TempDir()
	for i := range 10 {
		group := []string{".system", ".curated", ".experimental"}[i%3]
		rel := fmt.Sprintf("%s/skill-%d", group, i)
		layoutSkill(t, root, rel)
		want = append(want, filepath.Join(root, rel, skillFile))
	}
	for _, skip := range []string{".git", ".hg", ".svn", ".bzr", ".jj", "node_modules"} {
		layoutSkill(t, root, skip+"/hidden-"+strings.Trim(skip, ".")+"-skill")
	}
	slices.Sort(want)
	return root, want
}

// scanDiags drops the unknown-key warnings every layout skill carries on purpose.
func scanDiags(diags []Diagnostic) []Diagnostic {
	return slices.DeleteFunc(slices.Clone(diags), func(d Diagnostic) bool { return d.Rule == RuleUnknownKey })
}

func loadedPaths(skills []*Skill) []string {
	var out []string
	for _, s := range skills {
		out = append(out, s.Path)
	}
	slices.Sort(out)
	return out
}

// validatedPaths returns the SKILL.md paths Validate reported an unknown key for.
func validatedPaths(t *testing.T, path string) (paths []string, others []Diagnostic) {
	t.Helper()
	diags, err := Validate(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range diags {
		if d.Rule == RuleUnknownKey && strings.Contains(d.Message, "x-check") {
			paths = append(paths, d.Path)
		} else {
			others = append(others, d)
		}
	}
	slices.Sort(paths)
	return paths, others
}

func TestDiscoverDotFolderCollection(t *testing.T) {
	root, want := dotCollection(t)
	skills, diags := Discover([]string{root}, nil)
	diags = scanDiags(diags)
	if got := loadedPaths(skills); !slices.Equal(got, want) {
		t.Errorf("loaded %d of %d skills:\n got %q\nwant %q", len(got), len(want), got, want)
	}
	if len(diags) != 0 {
		t.Errorf("diagnostics:\n%s", diagList(diags))
	}
	got, others := validatedPaths(t, root)
	if !slices.Equal(got, want) || len(others) != 0 {
		t.Errorf("Validate checked %q, want %q; other diagnostics:\n%s", got, want, diagList(others))
	}
}

func TestDiscoverGitHubSkills(t *testing.T) {
	repo := t.TempDir()
	want := []string{layoutSkill(t, repo, ".github/skills/review"), layoutSkill(t, repo, ".github/skills/release")}
	layoutSkill(t, repo, ".git/skills/objects-skill")
	slices.Sort(want)
	skills, diags := Discover([]string{repo}, nil)
	diags = scanDiags(diags)
	if got := loadedPaths(skills); !slices.Equal(got, want) || len(diags) != 0 {
		t.Errorf("loaded %q, want %q; diagnostics:\n%s", got, want, diagList(diags))
	}
	if got, others := validatedPaths(t, repo); !slices.Equal(got, want) || len(others) != 0 {
		t.Errorf("Validate checked %q, want %q; other diagnostics:\n%s", got, want, diagList(others))
	}
}

// TestDiscoverTooDeep checks that a skill beyond the depth limit is reported, by discovery
// and by Validate, naming its path, while the shallow ones load; and that deep folders
// without skills say nothing.
func TestDiscoverTooDeep(t *testing.T) {
	root := t.TempDir()
	shallow := layoutSkill(t, root, "a/b/c/d/e/six")                  // depth 6: loads
	deep := layoutSkill(t, root, "a/b/c/d/e/f/g/eight")               // depth 8: reported
	write(t, root, "a/b/c/d/e/six/scripts/lib/deeper/x.py", "pass\n") // folders, no skill: silent
	skills, diags := Discover([]string{root}, nil)
	diags = scanDiags(diags)
	if got := loadedPaths(skills); !slices.Equal(got, []string{shallow}) {
		t.Errorf("loaded %q, want only %s", got, shallow)
	}
	if len(diags) != 1 || diags[0].Path != deep || diags[0].Severity != SeverityWarning ||
		!strings.Contains(diags[0].Message, "8 levels below its root") || !strings.Contains(diags[0].Message, "limit of 6") {
		t.Errorf("diagnostics:\n%s", diagList(diags))
	}
	got, others := validatedPaths(t, root)
	if !slices.Equal(got, []string{shallow}) || len(others) != 1 || others[0].Path != deep ||
		others[0].Severity != SeverityError || others[0].Rule != RuleSkillFile {
		t.Errorf("Validate checked %q; other diagnostics:\n%s", got, diagList(others))
	}
	// With a deeper limit it loads.
	skills, diags = Discover([]string{root}, &DiscoverOptions{MaxDepth: 8})
	diags = scanDiags(diags)
	if len(skills) != 2 || len(diags) != 0 {
		t.Errorf("MaxDepth 8: %d skills, diagnostics:\n%s", len(skills), diagList(diags))
	}
	// The search for deep skills stays within the folder budget, and says so when it runs out.
	_, diags = Discover([]string{root}, &DiscoverOptions{MaxFolders: 8})
	diags = scanDiags(diags)
	if len(diags) != 1 || diags[0].Path != root || !strings.Contains(diags[0].Message, "search for skills deeper than 6 levels stopped") {
		t.Errorf("MaxFolders 8: diagnostics:\n%s", diagList(diags))
	}
}

// TestScanLimitNamesFolder checks that the folder budget's diagnostic names the folder where
// the scan stopped, and that Validate fails on it.
func TestScanLimitNamesFolder(t *testing.T) {
	root := t.TempDir()
	for _, n := range []string{"a", "b", "c"} {
		layoutSkill(t, root, n)
	}
	_, diags := Discover([]string{root}, &DiscoverOptions{MaxFolders: 3})
	diags = scanDiags(diags)
	if len(diags) != 1 || diags[0].Path != root || !strings.Contains(diags[0].Message, "stopped at "+filepath.Join(root, "c")) {
		t.Errorf("diagnostics:\n%s", diagList(diags))
	}
}

func TestValidateFrontmatterLimit(t *testing.T) {
	root := t.TempDir()
	big := skillMD("name: big\ndescription: d\nmetadata:\n  pad: \""+strings.Repeat("x", maxHeadSize)+"\"\n", "Body")
	p := write(t, root, "big/SKILL.md", big)
	_, ddiags := Discover([]string{root}, nil)
	vdiags, err := Validate(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(ddiags) != 1 || ddiags[0].Severity != SeverityError || !strings.Contains(ddiags[0].Message, "within the first 64 KiB") {
		t.Fatalf("discovery diagnostics:\n%s", diagList(ddiags))
	}
	if len(vdiags) != 1 || vdiags[0].Rule != RuleFrontmatter || vdiags[0].Message != ddiags[0].Message {
		t.Errorf("Validate diagnostics:\n%s\nwant the same as discovery's", diagList(vdiags))
	}
}

func TestMissingConfiguredRoot(t *testing.T) {
	base := t.TempDir()
	missing := filepath.Join(base, "nope")
	m := newTestManager(t, &Options{Roots: []string{missing}, DefaultRoots: []string{filepath.Join(base, "also-missing")}})
	diags := m.Diagnostics()
	if len(diags) != 1 || diags[0].Path != missing || !strings.Contains(diags[0].Message, "does not exist") {
		t.Errorf("diagnostics:\n%s", diagList(diags))
	}
	// A "~" left inside a path (a config file's folder joined to "~/x") gets a hint.
	_, diags = Discover([]string{filepath.Join(base, "~", "skills")}, nil)
	if len(diags) != 1 || !strings.Contains(diags[0].Message, `"~" is taken as the home directory only at the start`) {
		t.Errorf("diagnostics:\n%s", diagList(diags))
	}
}

func TestHomeExpansion(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	want := layoutSkill(t, home, "my-skills/tilde")
	m := newTestManager(t, &Options{Roots: []string{"~/my-skills"}})
	if got := loadedPaths(m.Skills()); !slices.Equal(got, []string{want}) || len(scanDiags(m.Diagnostics())) != 0 {
		t.Errorf("loaded %q; diagnostics:\n%s", got, diagList(m.Diagnostics()))
	}
	if got := m.Roots(); !slices.Equal(got, []string{filepath.Join(home, "my-skills")}) {
		t.Errorf("Roots = %q", got)
	}
	if skills, _ := Discover([]string{"~/my-skills"}, nil); len(skills) != 1 {
		t.Errorf("Discover(~/my-skills) = %d skills", len(skills))
	}
	for in, out := range map[string]string{"~": home, "~/a": filepath.Join(home, "a"), "~bob/a": "~bob/a", "a/~/b": "a/~/b", "/x": "/x"} {
		if got := ExpandHome(in); got != out {
			t.Errorf("ExpandHome(%q) = %q, want %q", in, got, out)
		}
	}
}

// TestWatchDotFolder checks that the watcher applies discovery's skips: a skill added under a
// dot-folder after start-up loads.
func TestWatchDotFolder(t *testing.T) {
	root := t.TempDir()
	layoutSkill(t, root, ".system/first")
	m := newTestManager(t, &Options{Roots: []string{root}, Watch: true, Debounce: 20 * time.Millisecond})
	if len(m.Skills()) != 1 {
		t.Fatalf("skills at start: %d", len(m.Skills()))
	}
	layoutSkill(t, root, ".system/second")
	testwait.For(t, "second skill under .system", func() bool { return m.Skill("second") != nil })
	if err := m.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
}

package skill

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// With Confine, a symlinked skill folder or root leading out of the confining folder is not
// read, even to a folder holding a SKILL.md, and each link is a warning naming where it
// points; a SKILL.md linking out of its folder stays refused. Without Confine, the linked
// skill is read as before.
func TestDiscoverConfine(t *testing.T) {
	proj, outside := t.TempDir(), t.TempDir()
	write(t, outside, "far/SKILL.md", "---\nname: far\ndescription: FARMARKER\n---\nBody.\n")
	write(t, outside, "filed/SKILL.md", "---\nname: filed\ndescription: FILEDMARKER\n---\nBody.\n")
	write(t, proj, "skills/near/SKILL.md", "---\nname: near\ndescription: Near.\n---\nBody.\n")
	write(t, proj, "shared/inlink/SKILL.md", "---\nname: inlink\ndescription: Linked inside.\n---\nBody.\n")
	if err := os.MkdirAll(filepath.Join(proj, "skills/filed"), 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"skills/far":            filepath.Join(outside, "far"),
		"skills/inlink":         filepath.Join(proj, "shared/inlink"),
		"skills/filed/SKILL.md": filepath.Join(outside, "filed/SKILL.md"),
		"rootlink":              outside,
	} {
		if err := os.Symlink(target, filepath.Join(proj, link)); err != nil {
			t.Fatal(err)
		}
	}
	roots := []string{filepath.Join(proj, "skills"), filepath.Join(proj, "rootlink")}
	for _, c := range []struct {
		confine string
		want    []string
	}{
		{proj, []string{"inlink", "near"}},
		{"", []string{"far", "filed", "inlink", "near"}},
	} {
		skills, diags := Discover(roots, &DiscoverOptions{Confine: c.confine})
		var names []string
		for _, s := range skills {
			names = append(names, s.Name)
		}
		slices.Sort(names)
		names = slices.Compact(names)
		if !slices.Equal(names, c.want) {
			t.Errorf("confine %q: skills %v, want %v", c.confine, names, c.want)
		}
		if c.confine == "" {
			continue
		}
		for _, link := range []string{"skills/far", "rootlink"} {
			if !slices.ContainsFunc(diags, func(d Diagnostic) bool {
				return d.Path == filepath.Join(proj, link) && strings.Contains(d.Message, outside) && strings.Contains(d.Message, "not read")
			}) {
				t.Errorf("no diagnostic naming %s and where it points: %v", link, diags)
			}
		}
		for _, d := range diags {
			if strings.Contains(d.Message, "MARKER") {
				t.Errorf("a diagnostic shows what lies outside: %v", d)
			}
		}
	}
}

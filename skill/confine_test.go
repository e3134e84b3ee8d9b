package skill

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// noPathUnder fails the test when a diagnostic names anything under one of dirs.
func noPathUnder(t *testing.T, diags []Diagnostic, dirs ...string) {
	t.Helper()
	for _, d := range diags {
		for _, dir := range dirs {
			if strings.Contains(d.Path, dir+string(filepath.Separator)) || strings.Contains(d.Message, dir+string(filepath.Separator)) {
				t.Errorf("diagnostic names a path under %s: %v", dir, d)
			}
		}
	}
}

// countAt returns the diagnostics on path.
func countAt(diags []Diagnostic, path string) []Diagnostic {
	var out []Diagnostic
	for _, d := range diags {
		if d.Path == path {
			out = append(out, d)
		}
	}
	return out
}

// TestDiscoverStaysInside: a symlink inside a skill folder that leads out of it (etcdir ->
// /etc, or to a folder holding a skill elsewhere) is not walked: one diagnostic names the link,
// none names a path where it leads, and no skill is found through it. A symlink in a root, not
// inside a skill, is followed when it leads to a skill folder (the usual way to install one),
// not when it leads to any other folder outside the root. Links that stay inside keep working.
func TestDiscoverStaysInside(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	outside := filepath.Join(base, "outside")
	write(t, outside, "stray/SKILL.md", skillMD("name: stray\ndescription: Not in any root.\n", "Body"))
	write(t, outside, "installed/SKILL.md", skillMD("name: installed\ndescription: Linked into the root.\n", "Body"))
	write(t, root, "fs/SKILL.md", skillMD("name: fs\ndescription: Holds links out.\n", "Body"))
	write(t, root, "fs/refs/inner/SKILL.md", skillMD("name: inner\ndescription: Nested, reached through a link inside.\n", "Body"))
	symlink(t, "/etc", filepath.Join(root, "fs", "etcdir"))
	symlink(t, outside, filepath.Join(root, "fs", "outdir"))
	symlink(t, "/etc", filepath.Join(root, "etcdir"))                            // in the root, not a skill
	symlink(t, filepath.Join(outside, "installed"), filepath.Join(root, "inst")) // a skill folder: followed
	symlink(t, filepath.Join(root, "fs", "refs"), filepath.Join(root, "fs", "alias"))

	skills, diags := Discover([]string{root}, nil)
	got := map[string]bool{}
	for _, s := range skills {
		got[s.Name] = true
	}
	if len(skills) != 3 || !got["fs"] || !got["inner"] || !got["installed"] {
		t.Errorf("skills %v, want fs, inner and installed; diagnostics:\n%s", skills, diagList(diags))
	}
	for _, link := range []string{"fs/etcdir", "fs/outdir", "etcdir"} {
		p := filepath.Join(root, filepath.FromSlash(link))
		if ds := countAt(diags, p); len(ds) != 1 || !strings.Contains(ds[0].Message, "outside") {
			t.Errorf("%s: diagnostics %v, want one saying it leads outside", link, ds)
		}
	}
	noPathUnder(t, diags, "/etc", outside)
	if t.Failed() {
		t.Logf("all diagnostics:\n%s", diagList(diags))
	}

	// Validate applies the same walk: the skills are valid, the links are not followed.
	vdiags, err := Validate(filepath.Join(root, "fs"))
	if err != nil {
		t.Fatal(err)
	}
	noPathUnder(t, vdiags, "/etc", outside)
	for _, d := range vdiags {
		if !strings.Contains(d.Path, "fs") {
			t.Errorf("Validate: unexpected %v", d)
		}
	}
}

// TestValidateSymlinkedSkillFile: a SKILL.md that is a symlink to a file outside its skill
// folder (/etc/passwd, or a valid SKILL.md elsewhere) is refused, not read: the error says so
// and nothing of the file (its frontmatter problems) is reported.
func TestValidateSymlinkedSkillFile(t *testing.T) {
	base := t.TempDir()
	write(t, base, "elsewhere/SKILL.md", skillMD("name: x\ndescription: Valid, but outside.\n", "Body"))
	for target, folder := range map[string]string{"/etc/passwd": "p", filepath.Join(base, "elsewhere", "SKILL.md"): "x"} {
		md := filepath.Join(base, "v", folder, "SKILL.md")
		symlink(t, target, md)
		for _, path := range []string{md, filepath.Dir(md)} {
			diags, err := Validate(path)
			if err != nil || len(diags) != 1 || diags[0].Rule != RuleSkillFile || !strings.Contains(diags[0].Message, "outside the skill folder") {
				t.Errorf("Validate(%s) -> %s = %s %v, want one skill-file error: outside the skill folder", path, target, diagList(diags), err)
			}
			noPathUnder(t, diags, "/etc", filepath.Join(base, "elsewhere"))
			for _, d := range diags {
				if strings.Contains(d.Message, target) {
					t.Errorf("Validate(%s): diagnostic names the link's target: %v", path, d)
				}
			}
		}
	}
	if _, err := os.Stat("/etc/passwd"); err != nil {
		t.Skip("no /etc/passwd here")
	}
}

package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// A trusted project's skills are scanned by the host's one skill manager: skills list reports
// each of their diagnostics once, not once more from the project's inspection.
func TestTrustedProjectDiagnosticsOnce(t *testing.T) {
	r := newTrustRepo(t)
	writeFile(t, filepath.Join(r.dir, ".agents/skills/broken/SKILL.md"), "---\nname: broken\n---\nNo description.\n")
	for _, flags := range [][]string{nil, {"--trust-project"}} {
		_, stderr, _ := r.run(t, append(flags, "skills", "list")...)
		if n := strings.Count(stderr, filepath.Join("broken", "SKILL.md")); n != 1 {
			t.Errorf("%v: skills list reports the broken skill %d times, want once:\n%s", flags, n, stderr)
		}
		stdout, _, _ := r.run(t, append(flags, "skills", "list", "--json")...)
		if n := strings.Count(stdout, `"path": "`+filepath.Join(r.dir, ".agents", "skills", "broken", "SKILL.md")); n != 1 {
			t.Errorf("%v: skills list --json has the broken skill's diagnostic %d times, want once:\n%s", flags, n, stdout)
		}
	}
	r.created()
}

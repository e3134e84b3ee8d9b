package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLISeesBundledExamples: with neither --config nor --skills-dir, in an empty HOME and
// working folder, the CLI sees the bundled example skills that serve serves then: skills list
// lists them, run expands /hello-world and load_skill loads it; their temporary folder is
// gone after each command. With --skills-dir (as with --config) neither serve nor the CLI
// adds them.
func TestCLISeesBundledExamples(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	agentpool := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("agentpool", args...)
		cmd.Dir = t.TempDir()
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "TMPDIR="+tmp)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("agentpool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		if left, _ := filepath.Glob(filepath.Join(tmp, "agentpool-examples-*")); len(left) > 0 {
			t.Errorf("agentpool %s left the examples folder behind: %v", strings.Join(args, " "), left)
		}
		return string(out)
	}
	list := agentpool("skills", "list", "--json")
	for _, name := range []string{`"name": "hello-world"`, `"name": "code-review"`, `"name": "explain"`} {
		if !strings.Contains(list, name) {
			t.Errorf("skills list --json lacks %s:\n%s", name, list)
		}
	}
	if out := agentpool("run", "/hello-world"); !strings.Contains(out, "# Hello, world") {
		t.Errorf("run /hello-world:\n%s", out)
	}
	if out := agentpool("tools", "call", "load_skill", `{"name":"hello-world"}`); !strings.Contains(out, `<skill_content name="hello-world">`) {
		t.Errorf("tools call load_skill hello-world:\n%s", out)
	}
	if out := agentpool("--skills-dir", t.TempDir(), "skills", "list"); strings.Contains(out, "hello-world") {
		t.Errorf("skills list with --skills-dir lists the examples:\n%s", out)
	}
}

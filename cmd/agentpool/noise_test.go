package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommandsListDiagnostics: command-file diagnostics (bad YAML, a name with a space) are
// shown by commands list, on stderr and in --json, and /has space is not listed.
func TestCommandsListDiagnostics(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmds := filepath.Join(dir, "commands")
	writeFile(t, filepath.Join(cmds, "good.md"), "---\ndescription: Good\n---\nbody\n")
	writeFile(t, filepath.Join(cmds, "broken.md"), "---\ndescription: [unclosed\n---\nbody\n")
	writeFile(t, filepath.Join(cmds, "has space.md"), "body\n")
	cfg := writeExec(t, dir, "agentpool.yaml", "commands:\n  dirs: ["+cmds+"]\n", 0o644)
	stdout, stderr, err := runCLI(t, "--no-default-roots", "--config", cfg, "commands", "list")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stdout, "has space") || !strings.Contains(stdout, "/good") {
		t.Errorf("commands list:\n%s", stdout)
	}
	for _, want := range []string{"broken.md", "YAML", "has space.md", "whitespace"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	stdout, _, err = runCLI(t, "--no-default-roots", "--config", cfg, "commands", "list", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Diagnostics []struct{ Path, Message string } `json:"diagnostics"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Diagnostics) != 2 {
		t.Errorf("--json diagnostics = %+v; want broken.md and has space.md", got.Diagnostics)
	}
}

// TestJSONListsNeverNull: compile --json prints [] for empty collisions and problems, as the
// list commands do.
func TestJSONListsNeverNull(t *testing.T) {
	t.Parallel()
	stdout, _, err := runCLI(t, "--no-default-roots", "--skills-dir", t.TempDir(), "compile", "--json")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stdout, "null") {
		t.Errorf("compile --json has null:\n%s", stdout)
	}
	for _, args := range [][]string{{"tools", "list"}, {"commands", "list"}, {"skills", "list"}, {"resources", "list"}} {
		stdout, _, err := runCLI(t, append([]string{"--no-default-roots", "--skills-dir", t.TempDir()}, append(args, "--json")...)...)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(stdout, "null") {
			t.Errorf("%v --json has null:\n%s", args, stdout)
		}
	}
}

package mcpcap

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/decl"
)

// skillFolder makes a skill folder holding an executable script at each of names, and returns
// the folder's real path.
func skillFolder(t *testing.T, names ...string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		p := filepath.Join(dir, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func realNode(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node not found: %v", err)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// TestCheckCommandSkillBypass: a skill's own script named like an allowed command is not that
// command. `command: ./node` with allowed_commands [node] is refused, naming the path it
// resolves to and the allow-list; it is allowed by its path.
func TestCheckCommandSkillBypass(t *testing.T) {
	dir := skillFolder(t, "node", "bin/srv")
	for _, cmd := range []string{"./node", "bin/srv"} {
		spec := decl.Server{Command: cmd, Cwd: dir}
		err := CheckCommand(spec, "mcp-servers.s", []string{"node"}, dir)
		if err == nil {
			t.Fatalf("%s with allowed_commands [node]: allowed", cmd)
		}
		resolved := filepath.Join(dir, strings.TrimPrefix(cmd, "./"))
		for _, want := range []string{"mcp-servers.s.command", resolved, "allowed_commands [node]", realNode(t)} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error %q does not say %q", cmd, err, want)
			}
		}
		if err := CheckCommand(spec, "mcp-servers.s", []string{resolved}, dir); err != nil {
			t.Errorf("%s allowed by its path %s: %v", cmd, resolved, err)
		}
	}
}

// A relative command from a skill must stay in the skill folder, allow-list or not: its
// cwd, a .. or a symlink must not take it out.
func TestCheckCommandSkillConfined(t *testing.T) {
	outside := skillFolder(t, "srv")
	dir := skillFolder(t, "sub/x")
	if err := os.Symlink(realNode(t), filepath.Join(dir, "node")); err != nil {
		t.Fatal(err)
	}
	for _, spec := range []decl.Server{
		{Command: "../" + filepath.Base(outside) + "/srv", Cwd: dir},
		{Command: "./srv", Cwd: outside},
		{Command: "./node", Cwd: dir}, // a link to the real node: allowed by name, but outside
	} {
		for _, allowed := range [][]string{nil, {"node", filepath.Join(outside, "srv")}} {
			err := CheckCommand(spec, "mcp-servers.s", allowed, dir)
			if err == nil || !strings.Contains(err.Error(), "outside") {
				t.Errorf("%s in %s (allowed %v): %v, want an error saying it is outside the skill folder", spec.Command, spec.Cwd, allowed, err)
			}
		}
	}
	if err := CheckCommand(decl.Server{Command: "sub/x", Cwd: dir}, "k", nil, dir); err != nil {
		t.Errorf("a script inside the skill folder: %v", err)
	}
}

// Allow-list entries and commands match by the real path of the executable: a bare name is
// looked up in PATH, a path has its symlinks resolved.
func TestCheckCommandResolved(t *testing.T) {
	node := realNode(t)
	link := filepath.Join(t.TempDir(), "my-node")
	if err := os.Symlink(node, link); err != nil {
		t.Fatal(err)
	}
	lookedUp, _ := exec.LookPath("node")
	for _, tc := range []struct {
		command string
		allowed []string
		ok      bool
	}{
		{"node", []string{"node"}, true},
		{lookedUp, []string{"node"}, true},
		{link, []string{"node"}, true}, // runs the same executable
		{"node", []string{link}, true},
		{"node", []string{node}, true},
		{"sh", []string{"node"}, false},
		{"no-such-command-agentpool", []string{"no-such-command-agentpool"}, true}, // the same lookup at start
		{"./no-such-command-agentpool", []string{"no-such-command-agentpool"}, false},
		{"node", []string{"no-such-command-agentpool"}, false},
	} {
		err := CheckCommand(decl.Server{Command: tc.command}, "mcp_servers.s", tc.allowed, "")
		if (err == nil) != tc.ok {
			t.Errorf("command %q, allowed %v: %v, want allowed %v", tc.command, tc.allowed, err, tc.ok)
		}
	}
}

// TestCheckCommandEmptyList: `allowed_commands: []` allows no stdio server (as an explicit
// empty allowed-tools allows no tool); only an absent list (nil) leaves commands unchecked.
func TestCheckCommandEmptyList(t *testing.T) {
	spec := decl.Server{Command: "node"}
	if err := CheckCommand(spec, "mcp_servers.s", nil, ""); err != nil {
		t.Errorf("no list: %v, want allowed", err)
	}
	err := CheckCommand(spec, "mcp_servers.s", []string{}, "")
	if err == nil || !strings.Contains(err.Error(), "allowed_commands is empty") {
		t.Errorf("empty list: %v, want refused, saying the list is empty", err)
	}
	if err := CheckCommand(decl.Server{URL: "http://127.0.0.1:1/mcp"}, "mcp_servers.h", []string{}, ""); err != nil {
		t.Errorf("an HTTP server under an empty list: %v, want allowed (it starts no process)", err)
	}
}

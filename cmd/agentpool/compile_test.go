package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/internal/testserver"
)

// runCLI runs the CLI in process with args and returns stdout and stderr.
func runCLI(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	return runCLIContext(context.Background(), args...)
}

// runCLIContext is runCLI under ctx.
func runCLIContext(ctx context.Context, args ...string) (stdout, stderr string, err error) {
	var out, errOut bytes.Buffer
	root := newRootCmd()
	root.SetArgs(args)
	root.SetOut(&out)
	root.SetErr(&errOut)
	err = root.ExecuteContext(ctx)
	return out.String(), errOut.String(), err
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// compiledView is the part of `compile --json` the test reads.
type compiledView struct {
	Tools []struct {
		Name       string     `json:"name"`
		Capability string     `json:"capability"`
		Origin     ext.Origin `json:"origin"`
	} `json:"tools"`
	Commands []struct {
		Name string `json:"name"`
	} `json:"commands"`
	Collisions []struct {
		Kind   string `json:"kind"`
		Name   string `json:"name"`
		Winner struct{ Capability, ReachableAs string }
		Loser  struct {
			Capability  string
			ReachableAs string `json:"reachable_as"`
		}
	} `json:"collisions"`
	Instructions struct{ Static, Dynamic string } `json:"instructions"`
	Problems     []any                            `json:"problems"`
}

// compile --json on a config with skills, two MCP servers and command files: every tool once,
// each with its origin; a skill named like a server (both offering fault__echo) is a reported
// collision, and both tools stay reachable.
func TestCompileJSON(t *testing.T) {
	t.Parallel()
	bin := testserver.Build(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "agentpool.yaml"), `
skills:
  dirs: [skills]
  watch: false
commands:
  dirs: [cmds]
mcp_servers:
  fault:
    command: `+bin+`
  other:
    command: `+bin+`
    args: [--extra-tool, extra]
`)
	writeFile(t, filepath.Join(dir, "skills", "fault", "SKILL.md"), "---\nname: fault\ndescription: A skill named like a server.\n"+
		"mcp-servers:\n  srv:\n    command: "+bin+"\n---\nUse the fault tools.\n")
	writeFile(t, filepath.Join(dir, "skills", "notes", "SKILL.md"), "---\nname: notes\ndescription: Takes notes.\n---\nWrite notes.\n")
	writeFile(t, filepath.Join(dir, "cmds", "review.md"), "---\ndescription: Review a file\n---\nReview $1.\n")

	stdout, stderr, err := runCLI(t, "--no-default-roots", "--config", filepath.Join(dir, "agentpool.yaml"), "compile", "--json")
	if err != nil {
		t.Fatalf("compile: %v\n%s", err, stderr)
	}
	var v compiledView
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatalf("compile --json output: %v\n%s", err, stdout)
	}
	seen := map[string]int{}
	origins := map[string]ext.Origin{}
	for _, tool := range v.Tools {
		seen[tool.Name]++
		origins[tool.Name] = tool.Origin
		if tool.Origin.Kind == "" || tool.Capability == "" {
			t.Errorf("tool %s has no origin or capability: %+v", tool.Name, tool)
		}
	}
	for name, n := range seen {
		if n != 1 {
			t.Errorf("tool %s listed %d times", name, n)
		}
	}
	for name, kind := range map[string]ext.OriginKind{
		"load_skill":         ext.OriginLocal,
		"fault__echo":        ext.OriginLocal, // the skill's own server, through the session's skill servers
		"fault__fault__echo": ext.OriginRemote,
		"other__echo":        ext.OriginRemote,
		"other__extra":       ext.OriginRemote,
	} {
		if seen[name] != 1 || origins[name].Kind != kind {
			t.Errorf("tool %s: listed %d times, origin %+v; want once, %s", name, seen[name], origins[name], kind)
		}
	}
	var found bool
	for _, c := range v.Collisions {
		if c.Kind == "tool" && c.Name == "fault__echo" {
			found = true
			if c.Winner.Capability != "skill-servers" || c.Loser.Capability != "fault" || c.Loser.ReachableAs != "fault__fault__echo" {
				t.Errorf("collision = %+v", c)
			}
		}
	}
	if !found {
		t.Errorf("no collision reported for fault__echo: %+v", v.Collisions)
	}
	if !strings.Contains(v.Instructions.Static, "<name>notes</name>") {
		t.Errorf("static instructions lack the catalogue: %q", v.Instructions.Static)
	}
	var review bool
	for _, c := range v.Commands {
		review = review || c.Name == "review"
	}
	if !review {
		t.Errorf("commands lack the command file: %+v", v.Commands)
	}
	if len(v.Problems) != 0 {
		t.Errorf("problems: %v", v.Problems)
	}

	// The table form says the same for a person.
	stdout, _, err = runCLI(t, "--no-default-roots", "--config", filepath.Join(dir, "agentpool.yaml"), "compile")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## tools", "fault__fault__echo", "remote mcp://fault", "## collisions (", "reachable as fault__fault__echo", "## instructions: static"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("compile output lacks %q:\n%s", want, stdout)
		}
	}
}

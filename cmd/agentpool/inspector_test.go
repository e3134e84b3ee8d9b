package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// inspectorDir is the build folder of @modelcontextprotocol/inspector-cli (pinned in
// testdata/npm/package.json, installed by make test), failing the test when it is missing.
// The CLI is run from there: version 1.0.3 finds its own package.json relative to the
// working directory ("../package.json"), and fails anywhere else.
func inspectorDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../../testdata/npm/node_modules/@modelcontextprotocol/inspector-cli/build")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "cli.js")); err != nil {
		t.Fatalf("the MCP Inspector CLI is not installed (%v): run make test, which runs npm ci in testdata/npm", err)
	}
	return dir
}

// inspect runs the Inspector CLI with args and decodes the JSON result it prints.
func inspect(t *testing.T, dir string, args ...string) map[string]any {
	t.Helper()
	cmd := exec.Command("node", append([]string{filepath.Join(dir, "cli.js"), "--cli"}, args...)...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("inspector %v: %v\nstdout:\n%s\nstderr:\n%s", args, err, stdout.String(), stderr.String())
	}
	out := stdout.Bytes()
	// The CLI prints a deprecation banner before the JSON.
	i := bytes.IndexByte(out, '{')
	var res map[string]any
	if i < 0 || json.Unmarshal(out[i:], &res) != nil {
		t.Fatalf("inspector %v printed no JSON result:\n%s\nstderr:\n%s", args, out, stderr.String())
	}
	return res
}

// names returns the field key of every object in res[list].
func names(res map[string]any, list, key string) []string {
	items, _ := res[list].([]any)
	var out []string
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			s, _ := m[key].(string)
			out = append(out, s)
		}
	}
	return out
}

// TestInspectorCLI: the MCP Inspector's CLI, a client nobody here wrote, lists tools,
// resources and prompts and calls a tool through `agentpool serve --http` and through
// `agentpool serve --stdio` (which it spawns).
func TestInspectorCLI(t *testing.T) {
	t.Parallel()
	dir := inspectorDir(t)
	args := serveFixture(t)
	home := t.TempDir()
	url, _ := startServeHTTP(t, home, args...)
	// stdio as a client configures it: an mcpServers file naming the command to spawn.
	mcpJSON, err := json.Marshal(map[string]any{"mcpServers": map[string]any{"agentpool": map[string]any{
		"command": "agentpool", "args": append(slices.Clone(args), "serve", "--stdio"),
		"env": map[string]string{"HOME": home, "XDG_CONFIG_HOME": os.Getenv("XDG_CONFIG_HOME"), "AGENTPOOL_TEST_PARENT": "1"},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	mcpFile := filepath.Join(t.TempDir(), "mcp.json")
	writeFile(t, mcpFile, string(mcpJSON))
	for _, tc := range []struct {
		name   string
		target []string // the server, before the method's options
	}{
		{"http", []string{url, "--transport", "http"}},
		{"stdio", []string{"--config", mcpFile, "--server", "agentpool"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			run := func(method ...string) map[string]any {
				return inspect(t, dir, append(slices.Clone(tc.target), method...)...)
			}
			tools := names(run("--method", "tools/list"), "tools", "name")
			for _, want := range []string{"fault__echo", "load_skill"} {
				if !slices.Contains(tools, want) {
					t.Errorf("tools/list %v lacks %s", tools, want)
				}
			}
			if res := names(run("--method", "resources/list"), "resources", "uri"); !slices.Contains(res, "skill://wave/SKILL.md") {
				t.Errorf("resources/list %v lacks skill://wave/SKILL.md", res)
			}
			prompts := names(run("--method", "prompts/list"), "prompts", "name")
			if !slices.Contains(prompts, "wave") || !slices.Contains(prompts, "fault:greet") {
				t.Errorf("prompts/list %v lacks wave or fault:greet", prompts)
			}
			res := run("--method", "tools/call", "--tool-name", "fault__echo", "--tool-arg", "text=inspected")
			if got := names(res, "content", "text"); !slices.Equal(got, []string{"inspected"}) || res["isError"] == true {
				t.Errorf("tools/call fault__echo = %v", res)
			}
		})
	}
}

package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/internal/testserver"
)

// nameRule is what the Anthropic and OpenAI APIs and strict MCP clients accept as a tool name.
var nameRule = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// longServer is an 80-character server name.
var longServer = "s" + strings.Repeat("0123456789", 7) + "-long-srv"

// writeNamedPlugins writes two plugins under dir whose servers' qualified tool names break the
// name rule, both running the faultserver bin (which also serves a tool "read.graph"): plugin
// deploy's server "api.v2" (tools "deploy.api.v2__<tool>") and plugin
// "very-long-plugin-name-…"'s server longServer (tools past 64 characters). It returns the
// config file that loads them.
func writeNamedPlugins(t *testing.T, dir, bin string) string {
	t.Helper()
	long := "very-long-plugin-name-" + strings.Repeat("x", 40)
	for name, server := range map[string]string{"deploy": "api.v2", long: longServer} {
		pdir := filepath.Join(dir, name)
		writeFile(t, filepath.Join(pdir, ".claude-plugin", "plugin.json"), `{"name": "`+name+`", "version": "0.1.0"}`)
		decl, err := json.Marshal(map[string]any{"mcpServers": map[string]any{server: map[string]any{
			"command": bin, "args": []string{"--extra-tool", "read.graph"}}}})
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(pdir, ".mcp.json"), string(decl))
	}
	cfg := filepath.Join(dir, "agentpool.yaml")
	writeFile(t, cfg, "plugins:\n  dirs: [./deploy, ./"+long+"]\n")
	return cfg
}

// compile reports every tool name the name rule mapped, qualified → served, in its text and in
// --json; every name it lists matches the rule.
func TestCompileReportsMappedNames(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := writeNamedPlugins(t, dir, testserver.Build(t))

	stdout, stderr, err := runCLI(t, "--no-default-roots", "--config", cfg, "compile")
	if err != nil {
		t.Fatalf("compile: %v\n%s", err, stderr)
	}
	for _, want := range []string{"deploy.api.v2__echo → deploy_api_v2__echo", "deploy.api.v2__read.graph → deploy_api_v2__read_graph"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("compile does not report %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stdout, longServer+"__echo → ") {
		t.Errorf("compile does not report the long server's names:\n%s", stdout)
	}

	stdout, stderr, err = runCLI(t, "--no-default-roots", "--config", cfg, "compile", "--json")
	if err != nil {
		t.Fatalf("compile --json: %v\n%s", err, stderr)
	}
	var v struct {
		Tools []struct{ Name, Qualified, Capability string }
	}
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatalf("compile --json output: %v\n%s", err, stdout)
	}
	mapped := map[string]string{}
	for _, tool := range v.Tools {
		if !nameRule.MatchString(tool.Name) {
			t.Errorf("tool %q does not match %s", tool.Name, nameRule)
		}
		if tool.Qualified != "" {
			mapped[tool.Qualified] = tool.Name
		} else if strings.Contains(tool.Capability, ".") {
			t.Errorf("tool %q of %s is not reported as mapped", tool.Name, tool.Capability)
		}
	}
	if got := mapped["deploy.api.v2__read.graph"]; got != "deploy_api_v2__read_graph" {
		t.Errorf("deploy.api.v2__read.graph is served as %q; mapped = %v", got, mapped)
	}
	if len(mapped) < 4 {
		t.Errorf("names mapped: %v; want every tool of both plugins' servers", mapped)
	}
}

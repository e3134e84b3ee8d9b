package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/internal/testserver"
)

// A Codex-style .mcp.json (comments, trailing commas, Codex's own keys) imported by the config:
// config check exits 0 and prints a warning per key agentpool ignores, naming file, line and
// key; serve starts and serves the imported server with its enabled_tools applied, and leaves
// out the server "enabled": false turns off.
func TestImportForeignKeysServe(t *testing.T) {
	t.Parallel()
	bin := testserver.Build(t)
	dir, home := t.TempDir(), t.TempDir()
	cfg := filepath.Join(dir, "agentpool.yaml")
	writeTestFile(t, cfg, "import: [.mcp.json]\n")
	writeTestFile(t, filepath.Join(dir, ".mcp.json"), `// written by Codex
{
  "mcpServers": {
    "codex": {
      "command": "`+bin+`",
      "startup_timeout_sec": 20,
      "tool_timeout_sec": 60,
      "enabled_tools": ["echo", "pid"], /* the two the agent uses */
      "oauth_resource": "https://example.com",
    },
    "off": {"command": "`+bin+`", "enabled": false},
  },
}
`)
	out, stderr, code := runIn(t, dir, []string{"HOME=" + home}, "config", "check", cfg)
	if code != 0 {
		t.Fatalf("config check: exit %d\n%s%s", code, out, stderr)
	}
	for _, want := range []string{
		"warning: " + filepath.Join(dir, ".mcp.json") + ":9:7: mcpServers.codex.oauth_resource: ignored",
		"warning: " + filepath.Join(dir, ".mcp.json") + ":11:",
		"mcpServers.off: enabled: false: not imported",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("config check: no %q in:\n%s", want, out)
		}
	}
	url, _ := startServeHTTP(t, home, "--no-default-roots", "--config", cfg)
	tools := toolsOf(t, connectAt(t, url))
	slices.Sort(tools)
	if want := []string{"codex__echo", "codex__pid"}; !slices.Equal(tools, want) {
		t.Errorf("served tools %v, want %v", tools, want)
	}
}

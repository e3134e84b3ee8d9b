package config

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/plugin"
)

// What the host does with a plugin: each MCPSource through ParseServers with the plugin's
// variables. The fixtures of package plugin are read as they are.
func TestPluginServers(t *testing.T) {
	for dir, want := range map[string]string{
		"../plugin/testdata/claude/demo":      "demo-db",
		"../plugin/testdata/codex/codex-demo": "codex-demo-search",
	} {
		p, err := plugin.LoadPlugin(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.MCP) != 1 {
			t.Fatalf("%s: MCP %v", dir, p.MCP)
		}
		servers, errs := ParseServers(p.MCP[0].File, p.MCP[0].Data, p.Vars(), nil)
		if len(errs) > 0 {
			t.Fatalf("%s: %v", dir, errs)
		}
		s, ok := servers[want]
		if !ok {
			t.Fatalf("%s: servers %v", dir, servers.Names())
		}
		if !strings.HasPrefix(s.Command+strings.Join(s.Args, " "), p.Dir) && !strings.Contains(strings.Join(s.Args, " "), p.Dir) {
			t.Errorf("%s: %+v: the root variable is not expanded to %s", dir, s, p.Dir)
		}
	}
	// Inline servers in a manifest: a problem names the manifest's own line.
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{".claude-plugin/plugin.json": "{\"name\": \"p\",\n \"mcpServers\": {\n  \"ok\": {\"command\": \"${CLAUDE_PLUGIN_ROOT}/bin/x\"},\n  \"bad\": {\"type\": \"carrier-pigeon\"}}}"})
	p, err := plugin.LoadPlugin(dir)
	if err != nil || len(p.MCP) != 1 || !p.MCP[0].Inline {
		t.Fatalf("%v %+v", err, p)
	}
	servers, errs := ParseServers(p.MCP[0].File, p.MCP[0].Data, p.Vars(), nil)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), p.Manifest+":4:") || servers["ok"].Command != filepath.Join(p.Dir, "bin", "x") {
		t.Errorf("servers %+v, errors %v", servers, errs)
	}
}

// A plugin's .mcp.json written for Codex loads: its Codex keys become agentpool's, and a key
// agentpool does not know is a problem naming the file, line and key that leaves its server in.
func TestPluginServersCodexKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".mcp.json")
	data := "{\"mcpServers\": {\n \"gh\": {\"url\": \"https://h.example/mcp\", \"tool_timeout_sec\": 30,\n  \"oauth_resource\": \"https://h.example\"}}}"
	servers, errs := ParseServers(path, []byte(data), nil, nil)
	if gh, ok := servers["gh"]; !ok || gh.Timeout != 30*time.Second {
		t.Errorf("servers %v: want gh with a 30s timeout", servers)
	}
	if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), path+":3:3: mcpServers.gh.oauth_resource: ignored") {
		t.Errorf("problems %v, want the oauth_resource warning", errs)
	}
}

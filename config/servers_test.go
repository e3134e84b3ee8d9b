package config

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/connpool"
)

// ParseServers reads a plugin's .mcp.json: wrapped in mcpServers or bare, ${VAR} from the
// plugin's variables first, then the environment, defaults honoured; a bad server is an error
// at its line and column, the good ones kept.
func TestParseServers(t *testing.T) {
	t.Setenv("AP_PLUGIN_TOKEN", "from-env")
	t.Setenv("CLAUDE_PLUGIN_ROOT", "/not/this/one")
	root := t.TempDir()
	vars := map[string]string{"CLAUDE_PLUGIN_ROOT": root}
	for name, data := range map[string]string{
		"wrapped": `{"mcpServers": {
  "db": {"command": "${CLAUDE_PLUGIN_ROOT}/servers/db", "args": ["--url", "${DB_URL:-sqlite://local}"], "env": {"TOKEN": "${AP_PLUGIN_TOKEN}"}, "cwd": "."},
  "web": {"type": "http", "url": "https://example.com/mcp"}
}}`,
		"bare": `{
  "db": {"command": "${CLAUDE_PLUGIN_ROOT}/servers/db", "args": ["--url", "${DB_URL:-sqlite://local}"], "env": {"TOKEN": "${AP_PLUGIN_TOKEN}"}, "cwd": "."},
  "web": {"type": "http", "url": "https://example.com/mcp"}
}`,
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(root, ".mcp.json")
			servers, errs := ParseServers(path, []byte(data), vars, nil)
			if len(errs) > 0 {
				t.Fatalf("errors: %v", errs)
			}
			db := servers["db"]
			if db.Command != root+"/servers/db" || db.Args[1] != "sqlite://local" || db.Env["TOKEN"] != "from-env" || db.Cwd != root || db.Type != connpool.TypeStdio {
				t.Errorf("db = %+v", db)
			}
			if servers["web"].Type != connpool.TypeStreamableHTTP {
				t.Errorf("web = %+v", servers["web"])
			}
		})
	}
}

func TestParseServersBadKeepsGood(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, ".mcp.json")
	data := `{
  "good": {"command": "node", "env": {"SECRET": "hunter2"}},
  "ws": {"type": "websocket", "url": "wss://example.com", "headers": {"Authorization": "Bearer hunter2"}},
  "nothing": {"env": {"SECRET": "hunter2"}},
  "unset": {"command": "${AP_SURELY_UNSET_VAR}"},
  "also-good": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer hunter2"}}
}`
	servers, errs := ParseServers(path, []byte(data), nil, nil)
	if got := strings.Join(servers.Names(), ","); got != "also-good,good" {
		t.Errorf("servers %s, want also-good,good", got)
	}
	all := ""
	for _, e := range errs {
		all += e.Error() + "\n"
	}
	for _, want := range []string{
		path + `:3:18: ws.type: unknown type "websocket"`,
		path + `:4:14: nothing: needs a command`,
		path + `:5:24: unset.command`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("errors lack %q:\n%s", want, all)
		}
	}
	if len(errs) != 3 {
		t.Errorf("%d errors, want 3:\n%s", len(errs), all)
	}
	if strings.Contains(all, "hunter2") {
		t.Errorf("an env or header value is printed:\n%s", all)
	}
	// allowed_commands applies; an inline manifest's mcpServers, given as the manifest.
	manifest := filepath.Join(root, ".claude-plugin", "plugin.json")
	servers, errs = ParseServers(manifest, []byte(`{"name": "p", "version": "1",
  "mcpServers": {"x": {"command": "definitely-not-allowed-cmd", "cwd": "sub"}, "y": {"url": "https://e/mcp"}}}`), map[string]string{"CLAUDE_PLUGIN_ROOT": root}, []string{})
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), manifest+":2:") || len(servers) != 1 {
		t.Errorf("servers %v, errors %v", servers.Names(), errs)
	}
	// Neither a server map nor an object.
	for _, bad := range []string{`[]`, `{"name": "x"}`, `{"a": 1}`, ``} {
		if s, errs := ParseServers(path, []byte(bad), nil, nil); len(errs) == 0 || len(s) != 0 || !strings.HasPrefix(errs[0].Error(), path+":") {
			t.Errorf("%q: servers %v, errors %v", bad, s, errs)
		}
	}
}

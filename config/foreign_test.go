package config

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/decl"
)

// The .mcp.json files Codex and Claude Code write (and those of their plugins) load as they
// are, comments and trailing commas included: the keys that mean something agentpool has
// become agentpool's, a disabled server is left out with a note, and every other key is a
// warning naming the file, its line and the key, never an error.
func TestImportForeignShapes(t *testing.T) {
	t.Setenv("AP_FOREIGN_PAT", "pat")
	t.Setenv("AP_FOREIGN_KEY", "key")
	for _, c := range []struct {
		name, json string
		check      func(t *testing.T, ss map[string]decl.Server)
		warnings   []string // prefixes, after "<file>:"
	}{{
		name: "codex-http",
		json: `{
  "mcpServers": {
    "github": {
      "url": "https://api.githubcopilot.com/mcp/",
      "bearer_token_env_var": "AP_FOREIGN_PAT",
      "http_headers": {"X-Team": "platform"},
      "env_http_headers": {"X-Key": "AP_FOREIGN_KEY"},
      "startup_timeout_sec": 20,
      "tool_timeout_sec": 120.5,
      "enabled": true,
      "required": false,
      "oauth_resource": "https://api.githubcopilot.com",
      "scopes": ["repo"],
    },
  },
}
`,
		check: func(t *testing.T, ss map[string]decl.Server) {
			gh := ss["github"]
			if gh.Type != decl.TypeStreamableHTTP || gh.StartupTimeout != 20*time.Second || gh.Timeout != 120500*time.Millisecond {
				t.Errorf("github = %v, startup %s, timeout %s", gh, gh.StartupTimeout, gh.Timeout)
			}
			want := map[string]string{"Authorization": "Bearer pat", "X-Team": "platform", "X-Key": "key"}
			if len(gh.Headers) != len(want) {
				t.Errorf("headers %v, want %v", gh.Headers, want)
			}
			for k, v := range want {
				if gh.Headers[k] != v {
					t.Errorf("header %s = %q, want %q", k, gh.Headers[k], v)
				}
			}
		},
		warnings: []string{
			"11:7: mcpServers.github.required: ignored: agentpool starts without a server that fails",
			"12:7: mcpServers.github.oauth_resource: ignored: agentpool's auth has no resource",
			"13:7: mcpServers.github.scopes: ignored",
		},
	}, {
		name: "codex-stdio",
		json: `{"mcpServers": {
  "fs": {
    "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."],
    "env_vars": ["AP_FOREIGN_PAT"],
    "enabled_tools": ["read_file", "list*"],
    "disabled_tools": ["write_file"],
    "startup_timeout_ms": 1500,
    "cwd": "work"
  },
  "off": {"command": "x", "enabled": false, "tool_timeout_sec": 5}
}}`,
		check: func(t *testing.T, ss map[string]decl.Server) {
			fs := ss["fs"]
			if !slices.Equal(fs.EnvPassthrough, []string{"AP_FOREIGN_PAT"}) || !slices.Equal(fs.AllowTools, []string{"read_file", `list\*`}) ||
				!slices.Equal(fs.DenyTools, []string{"write_file"}) || fs.StartupTimeout != 1500*time.Millisecond {
				t.Errorf("fs = %v: passthrough %v, allow %v, deny %v, startup %s", fs, fs.EnvPassthrough, fs.AllowTools, fs.DenyTools, fs.StartupTimeout)
			}
			if _, ok := ss["off"]; ok {
				t.Error(`"enabled": false imported`)
			}
		},
		warnings: []string{"10:27: mcpServers.off: enabled: false: not imported"},
	}, {
		name: "claude-code",
		json: `// Claude Code's project servers
{
  "mcpServers": {
    /* a remote server with OAuth */
    "linear": {
      "type": "http",
      "url": "https://mcp.linear.app/mcp",
      "headers": {"Authorization": "Bearer ${AP_FOREIGN_KEY}"},
      "bearer_token_env_var": "AP_FOREIGN_PAT", // the header is given already
      "oauth": {"clientId": "abc", "callbackPort": 8080},
      "headersHelper": "/usr/local/bin/headers.sh",
    },
    "events": {"type": "sse", "url": "https://h.example/sse",},
    "local": {"type": "stdio", "command": "node", "args": ["server.js",], "timeout": 30, "tool_timeout_sec": 9, "foo": 1},
  }
}
`,
		check: func(t *testing.T, ss map[string]decl.Server) {
			if l := ss["linear"]; l.Type != decl.TypeStreamableHTTP || l.Headers["Authorization"] != "Bearer key" || len(l.Headers) != 1 || l.Auth != nil {
				t.Errorf("linear = %v %v %v", l, l.Headers, l.Auth)
			}
			if e := ss["events"]; e.Type != decl.TypeSSE {
				t.Errorf("events = %v", e)
			}
			if l := ss["local"]; l.Timeout != 30*time.Second || !slices.Equal(l.Args, []string{"server.js"}) {
				t.Errorf("local = %v %v %s", l, l.Args, l.Timeout)
			}
		},
		warnings: []string{
			"9:7: mcpServers.linear.bearer_token_env_var: ignored: the header Authorization is given already",
			"10:7: mcpServers.linear.oauth: ignored: agentpool's OAuth client is declared under auth",
			"11:7: mcpServers.linear.headersHelper: ignored",
			"14:90: mcpServers.local.tool_timeout_sec: ignored: timeout is given, and wins",
			"14:113: mcpServers.local.foo: unknown key, ignored (known keys: type, command",
		},
	}, {
		name: "claude-desktop",
		json: `{"mcpServers": {
  "memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"], "autoApprove": ["read_graph"], "disabled": false},
  "old": {"command": "y", "disabled": true},
  "typo": {"command": "z", "retry": {"atempts": 2, "calls": "always"}, "startup_timeout_sec": "ten", "enabled_tools": []}
}}`,
		check: func(t *testing.T, ss map[string]decl.Server) {
			if m := ss["memory"]; m.Command != "npx" {
				t.Errorf("memory = %v", m)
			}
			if _, ok := ss["old"]; ok {
				t.Error(`"disabled": true imported`)
			}
			if ty := ss["typo"]; ty.Retry.Calls != decl.CallsAlways || ty.Retry.Attempts != 0 || ty.StartupTimeout != 0 || len(ty.AllowTools) != 0 || !slices.Equal(ty.DenyTools, []string{"*"}) {
				t.Errorf("typo = %v %+v %s allow %v deny %v", ty, ty.Retry, ty.StartupTimeout, ty.AllowTools, ty.DenyTools)
			}
		},
		warnings: []string{
			"2:87: mcpServers.memory.autoApprove: ignored",
			"3:27: mcpServers.old: disabled: not imported",
			"4:38: mcpServers.typo.retry.atempts: unknown key, ignored (did you mean attempts?)",
			"4:72: mcpServers.typo.startup_timeout_sec: ignored: want a number, got a string",
		},
	}} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"agentpool.yaml": "import: [.mcp.json]\n", ".mcp.json": c.json})
			cfg, err := Load(filepath.Join(dir, "agentpool.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, cfg.MCPServers)
			file := filepath.Join(dir, ".mcp.json") + ":"
			for _, w := range c.warnings {
				if !slices.ContainsFunc(cfg.Warnings, func(s string) bool { return strings.HasPrefix(s, file+w) }) {
					t.Errorf("no warning %q in:\n%s", w, strings.Join(cfg.Warnings, "\n"))
				}
			}
			if len(cfg.Warnings) != len(c.warnings) {
				t.Errorf("%d warnings, want %d:\n%s", len(cfg.Warnings), len(c.warnings), strings.Join(cfg.Warnings, "\n"))
			}
			// As written for trust: the references kept, the same servers.
			d := cfg.Declared()
			if !slices.Equal(d.Names(), cfg.MCPServers.Names()) {
				t.Errorf("Declared %v, servers %v", d.Names(), cfg.MCPServers.Names())
			}
			if gh, ok := d["github"]; ok && gh.Headers["Authorization"] != "Bearer ${AP_FOREIGN_PAT}" {
				t.Errorf("Declared github's Authorization = %q, want the reference as written", gh.Headers["Authorization"])
			}
		})
	}
}

// Codex serves enabled_tools less disabled_tools: a tool named in both is one it does not
// serve, never a reason to leave the server out, and one that leaves none serves no tool.
func TestImportEnabledAndDisabledTool(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"agentpool.yaml": "import: [.mcp.json]\n", ".mcp.json": `{"mcpServers": {
  "fs": {"command": "x", "enabled_tools": ["keep", "remove"], "disabled_tools": ["remove"]},
  "none": {"command": "x", "enabled_tools": ["remove"], "disabled_tools": ["remove"]}
}}`})
	cfg, err := Load(filepath.Join(dir, "agentpool.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	fs, ok := cfg.MCPServers["fs"]
	if !ok || !slices.Equal(fs.AllowTools, []string{"keep"}) || !slices.Equal(fs.DenyTools, []string{"remove"}) {
		t.Errorf("fs = %v (imported %v): allow %v, deny %v; want allow [keep], deny [remove]", fs, ok, fs.AllowTools, fs.DenyTools)
	}
	// Nothing left of enabled_tools: no tool is served, where an empty allow_tools would serve all.
	none, ok := cfg.MCPServers["none"]
	if !ok || len(none.AllowTools) != 0 || !slices.Equal(none.DenyTools, []string{"remove", "*"}) {
		t.Errorf("none = %v (imported %v): allow %v, deny %v; want deny [remove *]", none, ok, none.AllowTools, none.DenyTools)
	}
}

// An empty enabled_tools is Codex's way to serve no tool of a server: imported, it serves none.
func TestImportEnabledToolsEmpty(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"agentpool.yaml": "import: [.mcp.json]\n", ".mcp.json": `{"mcpServers": {
  "none": {"command": "x", "enabled_tools": []},
  "denied": {"command": "x", "enabled_tools": [], "disabled_tools": ["a"]}
}}`})
	cfg, err := Load(filepath.Join(dir, "agentpool.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]string{"none": {"*"}, "denied": {"a", "*"}} {
		s := cfg.MCPServers[name]
		if len(s.AllowTools) != 0 || !slices.Equal(s.DenyTools, want) {
			t.Errorf("%s: allow %v, deny %v; want deny %v", name, s.AllowTools, s.DenyTools, want)
		}
	}
	if len(cfg.Warnings) != 0 {
		t.Errorf("warnings %q", cfg.Warnings)
	}
}

// Codex leaves out a header of env_http_headers whose variable is not set: imported, the
// server loads (the header empty), where an unset ${VAR} would refuse the whole config.
func TestImportEnvHTTPHeaderUnset(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"agentpool.yaml": "import: [.mcp.json]\n", ".mcp.json": `{"mcpServers": {
  "gh": {"url": "https://h.example/mcp", "env_http_headers": {"X-Key": "AP_FOREIGN_UNSET_KEY"}}
}}`})
	cfg, err := Load(filepath.Join(dir, "agentpool.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if gh, ok := cfg.MCPServers["gh"]; !ok || gh.Headers["X-Key"] != "" {
		t.Errorf("gh = %v (imported %v), headers %v", gh, ok, gh.Headers)
	}
	t.Setenv("AP_FOREIGN_UNSET_KEY", "k")
	if cfg, err = Load(filepath.Join(dir, "agentpool.yaml")); err != nil || cfg.MCPServers["gh"].Headers["X-Key"] != "k" {
		t.Errorf("set: %v, %v", err, cfg)
	}
}

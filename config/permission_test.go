package config

import (
	"strings"
	"testing"
)

// A server's permission key is ask, allow or deny, or a mapping of a default and tools by
// name or pattern; anything else is an error naming the file, line and key.
func TestServerPermission(t *testing.T) {
	cfg, err := Parse("agentpool.yaml", []byte("mcp_servers:\n  a:\n    command: x\n    permission: allow\n"+
		"  b:\n    command: x\n    permission:\n      default: ask\n      tools: {read_*: allow, rm: deny}\n"+
		"  c:\n    command: x\n    permission:\n      tools: {\"*\": allow, \"delete_*\": deny, \"*_file\": ask}\n"))
	if err != nil {
		t.Fatal(err)
	}
	a, b := cfg.MCPServers["a"].Permission, cfg.MCPServers["b"].Permission
	for _, c := range []struct{ server, tool, want string }{
		{"a", "a__anything", "allow"}, {"b", "b__read_file", "allow"}, {"b", "read_file", "allow"},
		{"b", "b__rm", "deny"}, {"b", "b__write", "ask"},
		{"c", "c__delete_file", "deny"}, {"c", "c__edit_file", "ask"}, {"c", "c__list", "allow"},
	} {
		p := a
		switch c.server {
		case "b":
			p = b
		case "c":
			p = cfg.MCPServers["c"].Permission
		}
		if got := p.For(c.server, c.tool); got != c.want {
			t.Errorf("%s: %s = %q, want %q", c.server, c.tool, got, c.want)
		}
	}
	for _, c := range []struct{ text, want string }{
		{"mcp_servers:\n  s:\n    command: x\n    permission: sometimes\n", "agentpool.yaml:4:17: mcp_servers.s.permission"},
		{"mcp_servers:\n  s:\n    command: x\n    permission:\n      tools: {rm: never}\n", "mcp_servers.s.permission.tools.rm: unknown permission \"never\""},
		{"mcp_servers:\n  s:\n    command: x\n    permission:\n      default: maybe\n", "agentpool.yaml:5:7: mcp_servers.s.permission: unknown permission \"maybe\""},
		{"mcp_servers:\n  s:\n    command: x\n    permission:\n      defualt: ask\n", "agentpool.yaml:5:7: mcp_servers.s.permission.defualt: unknown key"},
	} {
		_, err := Parse("agentpool.yaml", []byte(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.text, err, c.want)
		}
	}
}

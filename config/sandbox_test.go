package config

import (
	"strings"
	"testing"

	"github.com/agentpool/agentpool/decl"
	"github.com/google/go-cmp/cmp"
)

// The sandbox key reads as a mapping or as `off`, per server and at the top level; network is
// none, all or a list of host:port.
func TestSandboxKeys(t *testing.T) {
	t.Setenv("SANDBOX_DATA", "/data")
	cfg, err := Parse("agentpool.yaml", []byte(`
sandbox:
  read: [~/projects]
mcp_servers:
  a:
    command: npx
    sandbox:
      read: [~/projects, "${SANDBOX_DATA}/x"]
      write: [/tmp/x]
      network: ["127.0.0.1:8080", "api.example.com:443"]
      exec: [/usr/bin/git]
      profile: node
      required: false
  b:
    command: x
    sandbox: off
  c:
    command: x
    sandbox:
      network: none
  d:
    command: x
`))
	if err != nil {
		t.Fatal(err)
	}
	no := false
	want := map[string]*decl.Sandbox{
		"a": {Read: []string{"~/projects", "/data/x"}, Write: []string{"/tmp/x"},
			Network: decl.Network{Mode: decl.NetworkList, Allow: []string{"127.0.0.1:8080", "api.example.com:443"}},
			Exec:    []string{"/usr/bin/git"}, Profile: "node", Required: &no},
		"b": {Off: true},
		"c": {Network: decl.Network{Mode: decl.NetworkNone}},
		"d": nil,
	}
	for name, w := range want {
		if diff := cmp.Diff(w, cfg.MCPServers[name].Sandbox); diff != "" {
			t.Errorf("server %s sandbox (-want +got):\n%s", name, diff)
		}
	}
	if diff := cmp.Diff(&decl.Sandbox{Read: []string{"~/projects"}}, cfg.Sandbox); diff != "" {
		t.Errorf("top-level sandbox (-want +got):\n%s", diff)
	}
	if p := cfg.MCPServers["a"].Sandbox.Network.Ports(); !cmp.Equal(p, []uint16{8080, 443}) {
		t.Errorf("ports = %v", p)
	}
}

// A bad sandbox value is an error naming its key and line.
func TestSandboxKeyErrors(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"sandbox:\n  network: some\n", "agentpool.yaml:2:12: sandbox.network: unknown network \"some\""},
		{"mcp_servers:\n  s:\n    command: x\n    sandbox: on\n", "agentpool.yaml:4:14: mcp_servers.s.sandbox: \"on\" is neither off nor a mapping"},
		{"mcp_servers:\n  s:\n    command: x\n    sandbox:\n      network: [\"localhost\"]\n", "mcp_servers.s.sandbox.network[0]: \"localhost\": want host:port"},
		{"mcp_servers:\n  s:\n    command: x\n    sandbox:\n      network: [\"h:99999\"]\n", "mcp_servers.s.sandbox.network[0]"},
		{"mcp_servers:\n  s:\n    command: x\n    sandbox:\n      profile: ruby\n", "agentpool.yaml:5:16: mcp_servers.s.sandbox.profile: unknown profile \"ruby\""},
		{"mcp_servers:\n  s:\n    command: x\n    sandbox:\n      read: [\"\"]\n", "mcp_servers.s.sandbox.read[0]: empty path"},
		{"mcp_servers:\n  s:\n    url: https://h/mcp\n    sandbox:\n      read: [/x]\n", "mcp_servers.s.sandbox: sandbox is only for stdio servers"},
		{"mcp_servers:\n  s:\n    command: x\n    sandbox:\n      raed: [/x]\n", "raed"},
	} {
		_, err := Parse("agentpool.yaml", []byte(c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want %s", c.yaml, err, c.want)
		}
	}
}

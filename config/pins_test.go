package config

import (
	"strings"
	"testing"
)

// The pins keys take off, warn or block; anything else is an error naming the key and
// its line.
func TestPinsKeys(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"pins: sometimes\n", "agentpool.yaml:1:7: pins: unknown pin policy \"sometimes\""},
		{"mcp_servers:\n  s:\n    command: x\n    pins: strict\n", "agentpool.yaml:4:11: mcp_servers.s.pins: unknown pin policy \"strict\""},
	} {
		_, err := Parse("agentpool.yaml", []byte(c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want %s", c.yaml, err, c.want)
		}
	}
	cfg, err := Parse("agentpool.yaml", []byte("pins: block\nmcp_servers:\n  s:\n    command: x\n    pins: off\n"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Pins != "block" || cfg.MCPServers["s"].Pins != "off" {
		t.Errorf("parsed pins %q, server pins %q", cfg.Pins, cfg.MCPServers["s"].Pins)
	}
}

package config

import (
	"strings"
	"testing"
)

// hidden_text takes sanitize or block, per server and as extensions.hidden_text; anything
// else is an error naming the key.
func TestHiddenTextKey(t *testing.T) {
	for _, c := range []struct{ yaml, key string }{
		{"extensions: {hidden_text: strip}\n", "extensions.hidden_text"},
		{"mcp_servers:\n  a: {command: x, hidden_text: Block}\n", "mcp_servers.a.hidden_text"},
	} {
		_, err := Parse("agentpool.yaml", []byte(c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.key) || !strings.Contains(err.Error(), "want sanitize or block") {
			t.Errorf("%q: err = %v, want an error naming %s", c.yaml, err, c.key)
		}
	}
	cfg, err := Parse("agentpool.yaml", []byte("extensions: {hidden_text: block}\nmcp_servers:\n  a: {command: x, hidden_text: sanitize}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Extensions.HiddenText != "block" || cfg.MCPServers["a"].HiddenText != "sanitize" {
		t.Errorf("parsed %+v, %+v", cfg.Extensions, cfg.MCPServers["a"])
	}
	s := Schema()
	for _, def := range []string{"decl.Server", "config.Extensions"} {
		if d := s.Defs[def]; d == nil || d.Properties["hidden_text"] == nil || len(d.Properties["hidden_text"].AnyOf) == 0 || len(d.Properties["hidden_text"].AnyOf[0].Enum) != 2 {
			t.Errorf("schema %s has no hidden_text enum", def)
		}
	}
}

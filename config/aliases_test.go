package config

import (
	"testing"
)

// TestMergeKeyInStringMap: a YAML merge key (<<: *base) in a map of strings (a server's env)
// is valid YAML and merges the base's entries; it is not a mapping given where a string goes.
func TestMergeKeyInStringMap(t *testing.T) {
	data := `mcp_servers:
  b: {command: node, env: &base {A: "1"}}
  a:
    command: node
    env:
      <<: *base
      B: "2"
  s: &srv {command: node, env: {<<: [*base, {C: "3"}]}}
  c:
    <<: *srv
    args: [y]
`
	cfg, err := Parse("cfg.yaml", []byte(data))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if env := cfg.MCPServers["a"].Env; env["A"] != "1" || env["B"] != "2" {
		t.Errorf("env = %v, want A=1 and B=2", env)
	}
	if c := cfg.MCPServers["c"]; c.Command != "node" || len(c.Args) != 1 {
		t.Errorf("server c = %+v, want command node (merged) and args [y]", c)
	}
	if env := cfg.MCPServers["s"].Env; env["A"] != "1" || env["C"] != "3" {
		t.Errorf("env of s = %v, want A=1 and C=3", env)
	}
}

// TestAliasOfTaggedValue: an alias of an anchored value with an explicit tag (&x !!seq [y])
// is that value (a list), not a string of the wrong kind.
func TestAliasOfTaggedValue(t *testing.T) {
	data := `mcp_servers:
  a: {command: node, args: &x !!seq [y]}
  b: {command: node, args: *x}
`
	cfg, err := Parse("cfg.yaml", []byte(data))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if args := cfg.MCPServers["b"].Args; len(args) != 1 || args[0] != "y" {
		t.Errorf("args of b = %q, want [y]", args)
	}
}

package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/spf13/cobra"
)

// snakeKey is how agentpool names a JSON key of its own.
var snakeKey = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// mcpKeys are the keys of the MCP objects --json prints as the protocol spells them (a tool, a
// resource, a template, read contents, a call's result), so that they read as a client sees
// them; mcpData are keys whose values are the server's or the user's own data (a schema, a
// result's structured content, _meta), not walked.
var (
	mcpKeys = []string{"mimeType", "inputSchema", "outputSchema", "uriTemplate", "readOnlyHint", "destructiveHint",
		"idempotentHint", "openWorldHint", "structuredContent", "isError", "_meta"}
	mcpData = []string{"inputSchema", "outputSchema", "structuredContent", "_meta", "input_schema", "metadata"}
)

// badKeys returns every key of the JSON value v, at path, that is neither snake_case nor one
// of mcpKeys.
func badKeys(v any, path string) []string {
	var out []string
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if !snakeKey.MatchString(k) && !slices.Contains(mcpKeys, k) {
				out = append(out, path+"."+k)
			}
			if !slices.Contains(mcpData, k) {
				out = append(out, badKeys(e, path+"."+k)...)
			}
		}
	case []any:
		for _, e := range x {
			out = append(out, badKeys(e, path+"[]")...)
		}
	}
	return out
}

// Every command with --json names its own keys in lower-case snake_case (the MCP objects it
// prints keep the protocol's names): each is run over a fixture that gives every key a value
// (a plugin with problems and an entry not installed, a skill with allowed-tools, a command
// with an argument hint, a server's tool), and the table below must hold every such command.
func TestJSONKeysSnakeCase(t *testing.T) {
	t.Parallel()
	dir, home := t.TempDir(), t.TempDir()
	writeTestFile(t, filepath.Join(dir, "skills", "greet", "SKILL.md"),
		"---\nname: greet\ndescription: Greets.\nallowed-tools: [fault__echo]\nmetadata: {always-active: true}\n---\nHello $1\n")
	writeTestFile(t, filepath.Join(dir, "cmds", "rev.md"), "---\ndescription: Review\nargument-hint: <file>\n---\nReview $1\n")
	writeTestFile(t, filepath.Join(dir, "market", ".claude-plugin", "marketplace.json"),
		`{"name": "m", "plugins": [{"name": "p", "source": "./p"}, {"name": "remote", "source": {"source": "github", "repo": "o/r"}}]}`)
	writeTestFile(t, filepath.Join(dir, "market", "p", ".claude-plugin", "plugin.json"),
		`{"name": "p", "author": {"name": "A"}, "icons": [{"src": "i.png", "mimeType": "image/png"}], "oddKey": 1}`)
	writeTestFile(t, filepath.Join(dir, "market", "p", ".mcp.json"), `{"mcpServers": {"s": {"command": "/nonexistent/x", "lazy": true, "foo": 1}}}`)
	cfg := filepath.Join(dir, "agentpool.yaml")
	writeTestFile(t, cfg, "skills: {dirs: [skills]}\ncommands: {dirs: [cmds]}\nmcp_servers:\n  fault: {command: "+testserver.Build(t)+"}\n"+
		"plugins:\n  marketplaces: [{path: market, enable: ['*']}]\n  dirs: [nowhere]\n")
	runs := map[string][]string{
		"compile":         {"compile", "--json"},
		"skills list":     {"skills", "list", "--json"},
		"skills validate": {"skills", "validate", filepath.Join(dir, "skills", "greet"), "--json"},
		"commands list":   {"commands", "list", "--json"},
		"commands run":    {"commands", "run", "/rev", "x", "--json"},
		"tools list":      {"tools", "list", "--json"},
		"tools call":      {"tools", "call", "fault__echo", `{"text": "a"}`, "--json"},
		"resources list":  {"resources", "list", "--json"},
		"resources read":  {"resources", "read", "skill://greet/SKILL.md", "--json"},
		"read":            {"read", "skill://greet/SKILL.md", "--json"},
		"plugins list":    {"plugins", "list", "--json"},
		"run":             {"run", "/rev x", "--json"},
		"watch":           nil, // one ext.ChangeEvent a line: checked below
	}
	var withJSON []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Flags().Lookup("json") != nil {
			withJSON = append(withJSON, strings.TrimPrefix(c.CommandPath(), "agentpool "))
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd())
	for _, name := range withJSON {
		if _, ok := runs[name]; !ok {
			t.Errorf("agentpool %s has --json: add it to this test", name)
		}
	}
	for name, args := range runs {
		if args == nil {
			continue
		}
		out, stderr, _ := runIn(t, dir, []string{"HOME=" + home}, append([]string{"--no-default-roots", "--config", cfg}, args...)...)
		var v any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Errorf("%s: not JSON: %v\n%s%s", name, err, out, stderr)
			continue
		}
		if bad := badKeys(v, ""); len(bad) > 0 {
			slices.Sort(bad)
			t.Errorf("%s: keys not in snake_case: %s", name, strings.Join(slices.Compact(bad), ", "))
		}
	}
	b, err := json.Marshal(ext.ChangeEvent{Capability: "c", Kind: ext.ResourcesChanged, SourceURI: "skill://x"})
	if err != nil {
		t.Fatal(err)
	}
	var ev any
	_ = json.Unmarshal(b, &ev)
	if bad := badKeys(ev, ""); len(bad) > 0 {
		t.Errorf("watch: keys not in snake_case: %s", strings.Join(bad, ", "))
	}
}

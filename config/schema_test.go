package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/google/jsonschema-go/jsonschema"
)

// resolvedSchema is Schema, through JSON, resolved by an independent validator.
func resolvedSchema(t *testing.T) *jsonschema.Resolved {
	t.Helper()
	data, err := SchemaJSON()
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("the schema does not read back: %v", err)
	}
	if s.Schema != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("$schema %q, want draft 2020-12", s.Schema)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("the schema does not resolve: %v", err)
	}
	return rs
}

// asJSON reads YAML text as the JSON value an editor's schema checker sees.
func asJSON(t *testing.T, text string) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(text), &v); err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// readmeYAML returns the README's yaml snippets that are configs (every one of them).
func readmeYAML(t *testing.T) []string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(readme), -1) {
		out = append(out, m[1])
	}
	if len(out) < 3 {
		t.Fatalf("%d yaml snippets in the README, want at least 3", len(out))
	}
	return out
}

// The schema accepts every config snippet of the README (each also loads), and refuses what
// the loader refuses for its shape: an unknown key, a value of the wrong kind, a duration
// without a unit, a transport type that is none.
func TestSchemaValidatesConfigs(t *testing.T) {
	rs := resolvedSchema(t)
	t.Setenv("TOKEN", "x")
	t.Setenv("GITHUB_TOKEN", "x")
	// Unset: every snippet naming it says the static token is optional, so each loads
	// without it (${AGENTPOOL_TOKEN} alone is an error whenever it is unset).
	t.Setenv("AGENTPOOL_TOKEN", "x")
	os.Unsetenv("AGENTPOOL_TOKEN")
	t.Setenv("GITHUB_OAUTH_CLIENT_ID", "x")
	t.Setenv("GITHUB_OAUTH_CLIENT_SECRET", "x")
	for i, text := range readmeYAML(t) {
		if _, err := Parse("README.md", []byte(text)); err != nil {
			t.Errorf("README snippet %d does not load: %v", i, err)
		}
		if err := rs.Validate(asJSON(t, text)); err != nil {
			t.Errorf("README snippet %d refused by the schema: %v\n%s", i, err, text)
		}
	}
	good := "mcp_servers:\n  a: {command: x, lazy: true, tools: [{name: t, input_schema: {type: object}}], prefix: \"\", retry: {calls: never}}\n" +
		"  b: {type: sse, url: 'http://h/sse', scope: session, timeout: 1m30s}\nimport: [.mcp.json]\nskills: {debounce: 500ms}\nserver: {tools: search}\n"
	if err := rs.Validate(asJSON(t, good)); err != nil {
		t.Errorf("refused %q: %v", good, err)
	}
	for _, bad := range []string{
		"mcp_servers:\n  a: {comand: x}\n",
		"mcpServers:\n  a: {command: x}\n",
		"mcp_servers:\n  a: {command: x, args: x}\n",
		"mcp_servers:\n  a: {command: x, timeout: 30}\n",
		"mcp_servers:\n  a: {command: x, timeout: soon}\n",
		"mcp_servers:\n  a: {type: http, url: 'http://h'}\n",
		"mcp_servers:\n  a: {command: x, scope: turn}\n",
		"pool: {max_clients: many}\n",
		"import: mcp.json\n",
		"agents: {r: {allow_tools: x}}\n",
		"server: {max_body: 1.5}\n",
		"server: {tools: lazy}\n",
	} {
		if err := rs.Validate(asJSON(t, bad)); err == nil {
			t.Errorf("the schema accepts %q", bad)
		} else if _, perr := Parse("x.yaml", []byte(bad)); perr == nil {
			t.Errorf("the schema refuses %q, which the loader accepts", bad)
		}
	}
}

// Every key of the config is in the schema by reflection: here, each yaml key of the README's
// snippets appears as a property name.
func TestSchemaHasEveryKey(t *testing.T) {
	data, err := SchemaJSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"mcp_servers", "import", "env_passthrough", "startup_timeout", "session_idle_timeout", "allowed_commands", "max_total_clients", "allow_tools", "input_schema", "read_timeout"} {
		if !strings.Contains(string(data), `"`+key+`"`) {
			t.Errorf("no %q in the schema", key)
		}
	}
	for _, hidden := range []string{`"Path"`, `"Warnings"`} {
		if strings.Contains(string(data), hidden) {
			t.Errorf("the schema holds %s, which is no key of the file", hidden)
		}
	}
	// Config's own path and warnings are not keys of the file (a marketplace's path is).
	var doc struct {
		Defs map[string]struct {
			Properties map[string]any `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	for _, hidden := range []string{"path", "warnings"} {
		if _, ok := doc.Defs["config.Config"].Properties[hidden]; ok {
			t.Errorf("the schema's top level holds %q, which is no key of the file", hidden)
		}
	}
	if _, ok := doc.Defs["plugin.MarketplaceConfig"].Properties["path"]; !ok {
		t.Error("the schema has no plugins.marketplaces[].path")
	}
}

// A key written with no value (null: an empty section with its entries commented out, a
// duration left blank) is the zero value to the loader: the schema accepts it too, so an
// editor does not mark a config the loader takes.
func TestSchemaAcceptsNull(t *testing.T) {
	rs := resolvedSchema(t)
	for _, text := range []string{
		"mcp_servers:\n  # a: {command: x}\n",
		"skills:\nimport:\n",
		"mcp_servers:\n  a:\n    command: x\n    timeout:\n    retry:\n",
		"agents:\n  r:\n",
		"server:\n  addr: 127.0.0.1:7433\n  token:\n",
	} {
		if _, err := Parse("x.yaml", []byte(text)); err != nil {
			t.Fatalf("the loader refuses %q: %v", text, err)
		}
		if err := rs.Validate(asJSON(t, text)); err != nil {
			t.Errorf("the schema refuses %q, which the loader accepts: %v", text, err)
		}
	}
}

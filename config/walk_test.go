package config

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/mcpcap"
	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// walkInto runs the walker over data for a value of type T and decodes the result, as Parse
// does for Config.
func walkInto[T any](t *testing.T, data string, env map[string]string) (T, error) {
	t.Helper()
	var out T
	file, err := parser.ParseBytes([]byte(data), 0)
	if err != nil {
		t.Fatal(err)
	}
	body := file.Docs[0].Body
	p := &problems{name: "x.yaml", root: body}
	w := &walker{p: p, dir: "/cfg", lookup: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
	w.walk(body, reflect.TypeFor[T](), "", fieldTags{}, func(n ast.Node) { body = n })
	if err := p.err(); err != nil {
		return out, err
	}
	if err := yaml.NodeToValue(body, &out, yaml.Strict()); err != nil {
		t.Fatalf("decode: %v", err)
	}
	return out, nil
}

// Any time.Duration field of any section is checked, however deep and under whatever key: the
// walker goes by the Go type, not by a list of key names.
func TestWalkDurationsByType(t *testing.T) {
	type leaf struct {
		Wait  time.Duration  `yaml:"wait"`
		Other string         `yaml:"other"`
		Ptr   *time.Duration `yaml:"ptr"`
	}
	type kind struct {
		Items  []leaf          `yaml:"items"`
		ByName map[string]leaf `yaml:"by_name"`
	}
	got, err := walkInto[kind](t, "items: [{wait: 1s, other: 30, ptr: 2m}]\nby_name: {a: {wait: 5ms, other: soon}}\n", nil)
	if err != nil || got.Items[0].Wait != time.Second || *got.Items[0].Ptr != 2*time.Minute || got.ByName["a"].Wait != 5*time.Millisecond {
		t.Fatalf("got %+v, %v", got, err)
	}
	_, err = walkInto[kind](t, "items:\n  - {wait: 1s}\n  - {ptr: 30}\nby_name:\n  b: {wait: later}\n", nil)
	for _, want := range []string{"x.yaml:3:11: items[1].ptr: 30 has no unit", `x.yaml:5:13: by_name.b.wait: "later" is not a duration`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want %q", err, want)
		}
	}
}

// ${VAR} applies only to fields tagged config:"expand" (and their lists' and maps' values),
// relative paths only to config:"path" ones; map keys and untagged fields are left as written.
func TestWalkExpandsTaggedFieldsOnly(t *testing.T) {
	type kind struct {
		Cmd   string            `yaml:"cmd" config:"expand"`
		Env   map[string]string `yaml:"env" config:"expand"`
		Dirs  []string          `yaml:"dirs" config:"expand,path"`
		Plain string            `yaml:"plain"`
		Any   map[string]any    `yaml:"any" config:"expand"`
	}
	env := map[string]string{"X": "ex", "D": "sub"}
	got, err := walkInto[kind](t, `
cmd: "${X}/bin"
env: {"${X}": "v=${X}"}
dirs: [rel, /abs, "${D}/d", "|x"]
plain: "${X} $$"
any: {k: "${X}"}
`, env)
	if err != nil {
		t.Fatal(err)
	}
	want := kind{
		Cmd: "ex/bin", Env: map[string]string{"${X}": "v=ex"}, Dirs: []string{"/cfg/rel", "/abs", "/cfg/sub/d", "/cfg/|x"},
		Plain: "${X} $$", Any: map[string]any{"k": "${X}"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

// A path field that starts with "~/" (or is "~") is taken from the home directory, as a shell
// would: skills.dirs: ["~/my-skills"] means what the user meant. "~user" and a "~" elsewhere
// are ordinary characters.
func TestWalkExpandsHomeInPaths(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	type kind struct {
		Dirs  []string `yaml:"dirs" config:"expand,path"`
		Plain string   `yaml:"plain"`
	}
	got, err := walkInto[kind](t, `
dirs: ["~/skills", "~", "~bob/x", "a/~/b"]
plain: "~/x"
`, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := kind{Dirs: []string{home + "/skills", home, "/cfg/~bob/x", "/cfg/a/~/b"}, Plain: "~/x"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

// A "~" path when the home directory is unknown is an error at its line, naming the key, not
// a folder literally called "~".
func TestParseHomeUnknown(t *testing.T) {
	t.Setenv("HOME", "")
	_, err := Parse("cfg.yaml", []byte("skills:\n  dirs: [\"~/skills\"]\n"))
	if err == nil || !strings.Contains(err.Error(), `cfg.yaml:2:10: skills.dirs[0]: cannot expand "~/skills"`) {
		t.Fatalf("err = %v", err)
	}
}

func TestParseExpandsBlockScalarsAndAliases(t *testing.T) {
	t.Setenv("AP_BIN", "/opt/bin")
	cfg, err := Parse("cfg.yaml", []byte(`
mcp_servers:
  a: &base
    command: ${AP_BIN}/server
    args:
      - |
        ${AP_BIN}
  b: *base
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b"} {
		if s := cfg.MCPServers[name]; s.Command != "/opt/bin/server" || s.Args[0] != "/opt/bin\n" {
			t.Errorf("%s = %+v", name, s)
		}
	}
}

// Problems a kind's Validate finds are placed at the key they name, a server name holding
// dots included, or at the nearest enclosing key present in the file.
func TestParseProblemPositions(t *testing.T) {
	data := `mcp_servers:
  a.b:
    command: x
    retry: {attempts: 21}
    allow_tools: [ok, "[bad"]
  c:
    tools:
      - {name: t}
      - {description: nameless}
`
	_, err := Parse("cfg.yaml", []byte(data))
	for _, want := range []string{
		"cfg.yaml:4:23: mcp_servers.a.b.retry.attempts: ",
		"cfg.yaml:5:23: mcp_servers.a.b.allow_tools[1]: bad pattern",
		"cfg.yaml:7:5: mcp_servers.c: needs a command",
		"cfg.yaml:9:9: mcp_servers.c.tools[1]: a tool needs a name",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v\nwant %q", err, want)
		}
	}
}

// A Config made in code is checked by Validate, with keys but without positions.
func TestValidateConfigMadeInCode(t *testing.T) {
	cfg := &Config{Pool: Pool{MaxClients: -1}, Extensions: Extensions{AllowedCommands: []string{"node"}}}
	cfg.MCPServers = mcpcap.Servers{"a": {Command: "/bin/sh"}}
	err := cfg.Validate()
	for _, want := range []string{"mcp_servers.a.command: command \"/bin/sh\" is not in extensions.allowed_commands", "pool.max_clients: must not be negative"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want %q", err, want)
		}
	}
	if cfg.MCPServers["a"].Type != "stdio" {
		t.Errorf("Validate did not fill in the implied type: %+v", cfg.MCPServers["a"])
	}
}

// An integer field must hold an integer: the decoder would otherwise truncate 2.5 to 2 and
// accept it without a word.
func TestParseRejectsFractionsForIntegers(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"pool:\n  max_clients: 2.5\n", "cfg.yaml:2:16: pool.max_clients: 2.5 is not a whole number"},
		{"skills: {max_folders: 1.9}\n", "cfg.yaml:1:23: skills.max_folders: 1.9 is not a whole number"},
		{"mcp_servers:\n  a: {command: x, retry: {attempts: 2.7}}\n", "cfg.yaml:2:37: mcp_servers.a.retry.attempts: 2.7 is not a whole number"},
		{"extensions: {max_composition_depth: 3.0}\n", "cfg.yaml:1:37: extensions.max_composition_depth: 3.0 is not a whole number"},
		// An exponent without a dot is a string node to the parser, which the decoder turned
		// into a number anyway: 1e-3 became 0 without a word.
		{"pool:\n  max_clients: 1e-3\n", "cfg.yaml:2:16: pool.max_clients: 1e-3 is not a whole number"},
		{"pool:\n  max_clients: 1e3\n", "cfg.yaml:2:16: pool.max_clients: 1e3 is not a whole number"},
		{"skills: {max_folders: \"2.5\"}\n", "cfg.yaml:1:23: skills.max_folders: 2.5 is not a whole number"},
	} {
		cfg, err := Parse("cfg.yaml", []byte(tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: cfg = %+v, err = %v; want %q", tc.yaml, cfg, err, tc.want)
		}
	}
	cfg, err := Parse("cfg.yaml", []byte("pool: {max_clients: 0x10}\nskills: {max_folders: 1_000}\n"))
	if err != nil || cfg.Pool.MaxClients != 16 || cfg.Skills.MaxFolders != 1000 {
		t.Fatalf("integers in other notations: %+v, %v", cfg, err)
	}
}

// An alias is checked as the value it stands for: *d for an anchored 500ms is a duration, and
// an alias to a bare number is still refused.
func TestParseDurationAliases(t *testing.T) {
	cfg, err := Parse("cfg.yaml", []byte("skills: {debounce: &d 500ms}\nmcp_servers:\n  x: {command: x, timeout: *d}\n"))
	if err != nil || cfg.MCPServers["x"].Timeout != 500*time.Millisecond {
		t.Fatalf("alias to a duration: %+v, %v", cfg, err)
	}
	_, err = Parse("cfg.yaml", []byte("skills: {max_folders: &n 30}\nmcp_servers:\n  x: {command: x, timeout: *n}\n"))
	if err == nil || !strings.Contains(err.Error(), "cfg.yaml:3:28: mcp_servers.x.timeout: 30 has no unit") {
		t.Fatalf("alias to a bare number: %v", err)
	}
}

package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/connpool"
)

func TestParseValid(t *testing.T) {
	t.Setenv("AP_TOKEN", "s3cret")
	dir := t.TempDir()
	path := filepath.Join(dir, "agentpool.yaml")
	data := `
skills:
  dirs: [skills]
  debounce: 200ms
mcp_servers:
  everything:
    command: npx
    args: ["-y", "@modelcontextprotocol/server-everything", "${AP_MISSING:-stdio}"]
    env: {TOKEN: "${AP_TOKEN}"}
    cwd: work
  remote:
    url: http://127.0.0.1:8080/mcp
    headers: {Authorization: "Bearer ${AP_TOKEN}"}
    scope: session
    retry: {attempts: 5, backoff: 10ms, calls: never}
pool:
  max_clients: 4
  idle_timeout: 1m
`
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	ev := cfg.MCPServers["everything"]
	if ev.Type != connpool.TypeStdio || ev.Args[2] != "stdio" || ev.Env["TOKEN"] != "s3cret" || ev.Cwd != filepath.Join(dir, "work") {
		t.Errorf("everything = %+v", ev)
	}
	rm := cfg.MCPServers["remote"]
	if rm.Type != connpool.TypeStreamableHTTP || rm.Headers["Authorization"] != "Bearer s3cret" || rm.Retry.Backoff != 10*time.Millisecond {
		t.Errorf("remote = %+v", rm)
	}
	if cfg.Skills.Dirs[0] != filepath.Join(dir, "skills") || cfg.Skills.Debounce != 200*time.Millisecond {
		t.Errorf("skills = %+v", cfg.Skills)
	}
	if got := cfg.MCPServers.Names(); strings.Join(got, ",") != "everything,remote" {
		t.Errorf("names = %v", got)
	}
}

func TestParseErrorsNameWhereAndWhat(t *testing.T) {
	cases := []struct {
		name, yaml string
		want       []string // substrings of the error, each must appear
	}{
		{"unknown key", "mcp_servers:\n  a:\n    comand: x\n", []string{"cfg.yaml:3:", "comand"}},
		{"syntax", "mcp_servers: [\n", []string{"cfg.yaml:"}},
		{"no command or url", "mcp_servers:\n  a:\n    args: [x]\n", []string{"cfg.yaml:3:", "mcp_servers.a: needs a command"}},
		{"bad type", "mcp_servers:\n  a:\n    type: ftp\n    command: x\n", []string{"cfg.yaml:3:", `unknown type "ftp"`}},
		{"bad url", "mcp_servers:\n  a:\n    url: file:///etc/passwd\n", []string{"cfg.yaml:3:", "http or https"}},
		{"unset env", "mcp_servers:\n  a:\n    command: ${AP_NOPE_UNSET}\n", []string{"cfg.yaml:3:", "AP_NOPE_UNSET is not set"}},
		{"bad scope", "mcp_servers:\n  a:\n    command: x\n    scope: turn\n", []string{"cfg.yaml:4:", `unknown scope "turn"`}},
		{"bad retry", "mcp_servers:\n  a:\n    command: x\n    retry: {calls: sometimes}\n", []string{"retry.calls"}},
		{"not allowed", "extensions:\n  allowed_commands: [node]\nmcp_servers:\n  a:\n    command: /bin/sh\n", []string{"cfg.yaml:5:", "allowed_commands"}},
		{"empty allow-list", "extensions:\n  allowed_commands: []\nmcp_servers:\n  a:\n    command: node\n", []string{"cfg.yaml:5:", "allowed_commands is empty"}},
		{"bad duration", "pool:\n  idle_timeout: soon\n", []string{"cfg.yaml:2:"}},
		{"two bad servers", "mcp_servers:\n  a: {args: [x]}\n  b: {type: nope, command: y}\n", []string{"mcp_servers.a", "mcp_servers.b"}},
		{"bad name", "mcp_servers:\n  'a/b': {command: x}\n", []string{"server name"}},
		{"negative max_clients", "pool:\n  max_clients: -1\n", []string{"cfg.yaml:2:", "pool.max_clients"}},
		{"negative max_total_clients", "pool:\n  max_total_clients: -1\n", []string{"cfg.yaml:2:", "pool.max_total_clients"}},
		{"negative read_timeout", "server:\n  read_timeout: -1s\n", []string{"cfg.yaml:2:", "server.read_timeout"}},
		{"stateless with a session server", "server:\n  stateless: true\nmcp_servers:\n  a:\n    command: x\n    scope: session\n", []string{"cfg.yaml:6:", "mcp_servers.a.scope", "server.stateless"}},
		{"stateless with an agent's session server", "server: {stateless: true}\nagents:\n  r:\n    mcp_servers:\n      a: {command: x, scope: session}\n", []string{"agents.r.mcp_servers.a.scope", "server.stateless"}},
		{"negative idle_timeout", "pool:\n  idle_timeout: -1m\n", []string{"cfg.yaml:2:", "pool.idle_timeout"}},
		{"negative depth", "extensions:\n  max_composition_depth: -2\n", []string{"cfg.yaml:2:", "max_composition_depth"}},
		{"negative debounce", "skills:\n  debounce: -5ms\n", []string{"cfg.yaml:2:", "skills.debounce"}},
		{"negative max_folders", "skills:\n  max_folders: -3\n", []string{"cfg.yaml:2:", "skills.max_folders"}},
		{"string for a list", "skills:\n  dirs: skills\n", []string{"cfg.yaml:2:"}},
		{"auth without issuer", "server:\n  auth: {scopes: [mcp]}\n", []string{"cfg.yaml:2:", "server.auth.issuer", "required"}},
		{"auth over http", "server:\n  auth:\n    issuer: http://idp.example\n", []string{"cfg.yaml:3:", "server.auth.issuer", "https"}},
		{"auth resource with a path", "server:\n  auth:\n    issuer: https://idp.example\n    resource: https://a.example/mcp\n", []string{"cfg.yaml:4:", "server.auth.resource", "base URL only"}},
		{"auth scope with a space", "server:\n  auth:\n    issuer: https://idp.example\n    scopes: [mcp, 'a b']\n", []string{"server.auth.scopes[1]", `"a b" is not a scope`}},
		{"auth unknown key", "server:\n  auth:\n    issuer: https://idp.example\n    audience: x\n", []string{"cfg.yaml:4:", "audience"}},
		{"auth resource with an empty query", "server:\n  auth:\n    issuer: https://idp.example\n    resource: https://a.example?\n", []string{"cfg.yaml:4:", "server.auth.resource", "base URL only"}},
		{"auth resource with an empty fragment", "server:\n  auth:\n    issuer: https://idp.example\n    resource: 'https://a.example#'\n", []string{"cfg.yaml:4:", "server.auth.resource", "base URL only"}},
		{"auth negative leeway", "server:\n  auth:\n    issuer: https://idp.example\n    leeway: -1s\n", []string{"cfg.yaml:4:", "server.auth.leeway"}},
		{"integer duration", "mcp_servers:\n  a: {command: x, timeout: 30}\n", []string{"cfg.yaml:2:", "timeout: 30 has no unit"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("cfg.yaml", []byte(tc.yaml))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestEmptyConfig(t *testing.T) {
	cfg, err := Parse("empty.yaml", []byte("\n# nothing\n"))
	if err != nil || cfg == nil || len(cfg.MCPServers) != 0 {
		t.Fatalf("cfg=%v err=%v", cfg, err)
	}
}

// A lazy server needs no static tools: it is listed from the tools it listed in an earlier run,
// or started to be listed.
func TestLazyWithoutToolsParses(t *testing.T) {
	cfg, err := Parse("cfg.yaml", []byte("mcp_servers:\n  a:\n    command: x\n    lazy: true\n"))
	if err != nil || !cfg.MCPServers["a"].Lazy {
		t.Fatalf("cfg=%v err=%v", cfg, err)
	}
}

func TestExpandEnv(t *testing.T) {
	env := map[string]string{"A": "1", "EMPTY": ""}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	cases := []struct{ in, want, err string }{
		{"plain", "plain", ""},
		{"${A}", "1", ""},
		{"x${A}y", "x1y", ""},
		{"${B:-dflt}", "dflt", ""},
		{"${EMPTY:-dflt}", "dflt", ""},
		{"${EMPTY}", "", ""},
		{"$$A", "$A", ""},
		{"$A and $", "$A and $", ""},
		{"${B}", "", "B is not set"},
		{"${A", "", "unclosed"},
		{"${1A}", "", "invalid variable name"},
		// A default is expanded in turn, as in a shell: nested variables and $$.
		{"${B:-${A}}", "1", ""},
		{"${B:-${C:-x}}y", "xy", ""},
		{"${A:-${B}}", "1", ""}, // the default is not used, so its unset B is no error
		{"${B:-$$HOME}", "$HOME", ""},
		{"${B:-${C}}", "", "C is not set"},
		{"${B:-${A}", "", "unclosed"},
	}
	for _, c := range cases {
		got, err := expandEnv(c.in, lookup)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("expandEnv(%q) err = %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("expandEnv(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("mcp_servers:\n  a:\n    command: x\n"))
	f.Add([]byte("skills: {dirs: [a, b]}\npool: {max_clients: 3}\n"))
	f.Add([]byte("mcp_servers: {a: {url: 'http://h/${X:-y}'}}"))
	f.Add([]byte("- - -\n:"))
	f.Add([]byte("skills: {debounce: &d 5s, max_folders: &n 1.5}\npool: {idle_timeout: *d, max_clients: *n}\nmcp_servers: {a: {command: x, timeout: *zz}}\n"))
	f.Add([]byte("mcp_servers: {a: {command: '${X:-${Y:-$$z}}', args: ['${X:-${', '${A:-}}']}}"))
	for _, m := range malformedFiles(f) {
		f.Add(m.data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse("fuzz.yaml", data)
		if err == nil && cfg == nil {
			t.Fatal("nil config without error")
		}
	})
}

// Duration checks apply to the config's own duration keys only, not to user-chosen map keys
// (an environment variable or header called "timeout", a tool schema property "backoff").
func TestDurationKeysOnlyWhereDurations(t *testing.T) {
	data := `
mcp_servers:
  a:
    command: x
    env: {timeout: "30", debounce: "soon"}
    tools:
      - name: t
        input_schema: {type: object, properties: {timeout: {type: string, default: "later"}}, timeout: "x"}
    timeout: 2s
    retry: {backoff: 10ms}
  b:
    url: http://127.0.0.1:1/mcp
    headers: {backoff: "yes", idle_timeout: "never"}
`
	cfg, err := Parse("cfg.yaml", []byte(data))
	if err != nil {
		t.Fatalf("a valid config is rejected: %v", err)
	}
	a := cfg.MCPServers["a"]
	if a.Env["timeout"] != "30" || cfg.MCPServers["b"].Headers["backoff"] != "yes" || a.Timeout != 2*time.Second || a.Retry.Backoff != 10*time.Millisecond {
		t.Fatalf("server = %+v", a)
	}
	// The real duration keys are still checked, with their position.
	for _, bad := range []struct{ yaml, where string }{
		{"mcp_servers:\n  a:\n    command: x\n    timeout: soon\n", "cfg.yaml:4:"},
		{"mcp_servers:\n  a:\n    command: x\n    retry: {backoff: soon}\n", "cfg.yaml:4:"},
		{"skills:\n  debounce: soon\n", "cfg.yaml:2:"},
		{"pool: {idle_timeout: soon}\n", "cfg.yaml:1:"},
	} {
		_, err := Parse("cfg.yaml", []byte(bad.yaml))
		if err == nil || !strings.Contains(err.Error(), bad.where) || !strings.Contains(err.Error(), "not a duration") {
			t.Errorf("%q: err = %v, want %s… not a duration", bad.yaml, err, bad.where)
		}
	}
}

// Errors the decoder finds (an unknown key, a value of the wrong kind) name the key as the
// config's own checks do, never the Go struct field they land in.
func TestDecodeErrorsNameTheKey(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"mcp_servers:\n  a:\n    command: x\n    bogus: 1\n", `cfg.yaml:4:5: mcp_servers.a.bogus: unknown key (known keys: type, command,`},
		{"mcp_servers:\n  a: {command: x, bogus: 1}\n", `cfg.yaml:2:19: mcp_servers.a.bogus: unknown key`},
		{"pool:\n  max_client: 3\n", `cfg.yaml:2:3: pool.max_client: unknown key (did you mean max_clients?)`},
		{"mcp_servers:\n  a:\n    command: x\n    lazy: yes\n", "cfg.yaml:4:11: mcp_servers.a.lazy: want true or false, got a string"},
		{"mcp_servers:\n  a:\n    command: x\n    env: {A: [1, 2]}\n", "cfg.yaml:4:14: mcp_servers.a.env.A: want a string, got a list"},
		{"skills: {dirs: [a, {b: c}]}\n", "cfg.yaml:1:20: skills.dirs[1]: want a string, got a mapping"},
		{"mcp_servers:\n  a: 5\n", "cfg.yaml:2:6: mcp_servers.a: want a mapping (key: value), got a whole number"},
	} {
		_, err := Parse("cfg.yaml", []byte(tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v\nwant %q", tc.yaml, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "Go struct field") {
			t.Errorf("%q: err = %v names a Go struct field", tc.yaml, err)
		}
	}
}

// malformed is one file of testdata/malformed: a config with one problem, whose first line,
// "# want LINE TEXT", says the line the error must name and text it must hold (the key and
// what is wrong). cmd/agentpool runs the same files through the CLI.
type malformed struct {
	name, path string
	data       []byte
	line       int
	want       string
}

func malformedFiles(tb testing.TB) []malformed {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "malformed", "*.yaml"))
	if err != nil || len(paths) < 30 {
		tb.Fatalf("testdata/malformed: %d files, err %v", len(paths), err)
	}
	var out []malformed
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		first, _, _ := strings.Cut(strings.TrimPrefix(string(data), "\ufeff"), "\n")
		var m malformed
		if _, err := fmt.Sscanf(first, "# want %d", &m.line); err != nil {
			tb.Fatalf("%s: first line %q is not \"# want LINE TEXT\"", p, first)
		}
		_, m.want, _ = strings.Cut(strings.TrimPrefix(first, "# want "), " ")
		m.name, m.path, m.data = filepath.Base(p), p, data
		out = append(out, m)
	}
	return out
}

// Every malformed file gives one error, on one line, naming the file, the line and the key.
func TestMalformedFiles(t *testing.T) {
	for _, m := range malformedFiles(t) {
		t.Run(m.name, func(t *testing.T) {
			cfg, err := Parse(m.name, m.data)
			if err == nil {
				t.Fatalf("no error (cfg %+v)", cfg)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("more than one line:\n%s", msg)
			}
			if prefix := fmt.Sprintf("%s:%d:", m.name, m.line); !strings.HasPrefix(msg, prefix) {
				t.Errorf("error %q does not start with %q", msg, prefix)
			}
			if !strings.Contains(msg, m.want) {
				t.Errorf("error %q lacks %q", msg, m.want)
			}
		})
	}
}

// A byte-order mark is skipped; a YAML directive, a trailing "---" and a "..." end do not
// count as a second document.
func TestOneDocumentTolerances(t *testing.T) {
	for _, data := range []string{
		"\ufeffmcp_servers:\n  a: {command: x}\n",
		"%YAML 1.2\n---\nmcp_servers:\n  a: {command: x}\n",
		"---\nmcp_servers:\n  a: {command: x}\n---\n",
		"mcp_servers:\n  a: {command: x}\n...\n",
	} {
		cfg, err := Parse("cfg.yaml", []byte(data))
		if err != nil {
			t.Errorf("%q: %v", data, err)
			continue
		}
		if _, ok := cfg.MCPServers["a"]; !ok {
			t.Errorf("%q: server a not read: %+v", data, cfg)
		}
	}
}

// The README's example config is read as written, with no variable set.
func TestREADMEExample(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "A config that adds MCP servers")
	_, rest, ok2 := strings.Cut(rest, "```yaml\n")
	example, _, ok3 := strings.Cut(rest, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("README has no yaml example after \"A config that adds MCP servers\"")
	}
	t.Setenv("TOKEN", "") // restores TOKEN after the test
	os.Unsetenv("TOKEN")
	if _, err := Parse("README.md", []byte(example)); err != nil {
		t.Errorf("README example: %v", err)
	}
}

// Declared is the mcp_servers section as written: ${VAR} references kept (with their
// defaults), paths still resolved; MCPServers has the values.
func TestDeclaredKeepsReferences(t *testing.T) {
	t.Setenv("AGENTPOOL_DECL_TOKEN", "secret")
	cfg, err := Parse("/etc/x/cfg.yaml", []byte("mcp_servers:\n  a:\n    command: srv\n    args: [\"${AGENTPOOL_DECL_TOKEN}\", \"${AGENTPOOL_DECL_UNSET:-d}\"]\n    cwd: rel\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.MCPServers["a"].Args; got[0] != "secret" || got[1] != "d" {
		t.Errorf("MCPServers args %v, want the values", got)
	}
	d, ok := cfg.Declared()["a"]
	if !ok || d.Args[0] != "${AGENTPOOL_DECL_TOKEN}" || d.Args[1] != "${AGENTPOOL_DECL_UNSET:-d}" {
		t.Errorf("Declared %+v, want the references as written", cfg.Declared())
	}
	if d.Cwd != "/etc/x/rel" {
		t.Errorf("Declared cwd %q, want the path resolved", d.Cwd)
	}
}

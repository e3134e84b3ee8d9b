package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/internal/testserver"
)

// runIn runs the agentpool binary in dir with env added to this process's, and returns its
// stdout, stderr and exit code.
func runIn(t *testing.T, dir string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command("agentpool", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), cmd.ProcessState.ExitCode()
}

func writeTestFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// With no FILE, config check reads what the other commands would: the project's
// ./agentpool.yaml and the user's $XDG_CONFIG_HOME/agentpool/agentpool.yaml, says which, and
// summarises each: servers by name with transport, scope and lazy, imported ones with their
// file, warnings, roots, agents, the server section. It starts nothing: the servers' command
// would touch a marker.
func TestConfigCheckSummary(t *testing.T) {
	t.Parallel()
	bin := testserver.Build(t)
	project, home, xdg := t.TempDir(), t.TempDir(), t.TempDir()
	marker := filepath.Join(t.TempDir(), "MARKER")
	start := `"command": "sh", "args": ["-c", "touch ` + marker + `; exec ` + bin + `"]`
	writeTestFile(t, filepath.Join(project, "agentpool.yaml"), "import: [.mcp.json]\nmcp_servers:\n  own:\n    command: sh\n    args: [-c, 'touch "+marker+"; exec "+bin+"']\n    scope: session\n")
	writeTestFile(t, filepath.Join(project, ".mcp.json"), `{"mcpServers": {"own": {`+start+`}, "imp": {`+start+`, "alwaysAllow": ["echo"]}}}`)
	writeTestFile(t, filepath.Join(xdg, "agentpool", "agentpool.yaml"), "mcp_servers:\n  remote: {url: 'https://user:secret@example.com/mcp', lazy: true, tools: [{name: t}]}\n"+
		"agents:\n  reviewer: {mcp_servers: {gh: {url: 'https://h/mcp'}}, allow_tools: ['gh__*']}\nserver: {addr: '127.0.0.1:9999', token: '${AP_CHECK_TOKEN:-}'}\n")
	out, stderr, code := runIn(t, project, []string{"HOME=" + home, "XDG_CONFIG_HOME=" + xdg}, "config", "check")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
	real, err := filepath.EvalSymlinks(project)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		filepath.Join(real, "agentpool.yaml") + " (the project's",
		filepath.Join(xdg, "agentpool", "agentpool.yaml") + " (yours): ok",
		`own: stdio server (command "sh"); scope session` + "\n",
		`imp: stdio server (command "sh"); scope pool, from ` + filepath.Join(real, ".mcp.json"),
		"warning: " + filepath.Join(real, ".mcp.json") + ":1:",
		"mcpServers.own: not imported: " + filepath.Join(real, "agentpool.yaml") + " declares mcp_servers.own, which wins",
		"mcpServers.imp.alwaysAllow: ignored",
		"remote: streamable-http server (url https://REDACTED@example.com/mcp); scope pool, lazy",
		"agent reviewer (/mcp/agents/reviewer): 1 servers (gh), 0 skill dirs, tools filtered",
		"server: addr 127.0.0.1:9999, token none",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "secret") {
		t.Errorf("the summary prints a URL's password:\n%s", out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("config check started a server")
	}
}

// Every error of the config and of the files it imports is printed, one a line, each naming
// its file, line and key, and config check exits 1; --config and FILE are read alone.
func TestConfigCheckEveryError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "agentpool.yaml")
	writeTestFile(t, cfg, "pool: {max_clients: -1}\nimport: [a.json]\nmcp_servers:\n  x: {command: node, timeout: 30}\n")
	writeTestFile(t, filepath.Join(dir, "a.json"), "{\"servers\": {\n  \"y\": {\"type\": \"websocket\"},\n  \"z\": {\"command\": \"node\", \"args\": \"x\"}\n}}\n")
	for _, args := range [][]string{{"config", "check", cfg}, {"--config", cfg, "config", "check"}} {
		out, stderr, code := runIn(t, t.TempDir(), []string{"HOME=" + t.TempDir()}, args...)
		if code != 1 {
			t.Errorf("%v: exit %d, want 1\n%s%s", args, code, out, stderr)
		}
		for _, want := range []string{
			cfg + ":1:21: pool.max_clients: must not be negative",
			cfg + ":4:31: mcp_servers.x.timeout: 30 has no unit",
			filepath.Join(dir, "a.json") + ":2:17: servers.y.type: unknown type \"websocket\"",
			filepath.Join(dir, "a.json") + ":3:36: servers.z.args: want a list",
		} {
			if !strings.Contains(out, "  "+want) {
				t.Errorf("%v: no %q in:\n%s", args, want, out)
			}
		}
		if strings.Contains(out, "not found") || strings.Contains(out, "(yours)") {
			t.Errorf("%v: read more than the file named:\n%s", args, out)
		}
	}
}

// Every case of config/testdata/malformed/<case>/ fails config check with exit 1 and its
// error, matching the case's want.
func TestConfigCheckMalformedCases(t *testing.T) {
	wants, err := filepath.Glob(filepath.Join("..", "..", "config", "testdata", "malformed", "*", "want"))
	if err != nil || len(wants) < 25 {
		t.Fatalf("%d cases, err %v", len(wants), err)
	}
	home := t.TempDir()
	for _, w := range wants {
		dir, err := filepath.Abs(filepath.Dir(w))
		if err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			want, err := os.ReadFile(w)
			if err != nil {
				t.Fatal(err)
			}
			out, stderr, code := runIn(t, home, []string{"HOME=" + home}, "config", "check", filepath.Join(dir, "agentpool.yaml"))
			if code != 1 {
				t.Errorf("exit %d, want 1\n%s%s", code, out, stderr)
			}
			if !regexp.MustCompile(strings.TrimSpace(string(want))).MatchString(out) {
				t.Errorf("output does not match %s:\n%s", want, out)
			}
		})
	}
}

// config schema prints a JSON Schema of draft 2020-12 whose root refuses unknown keys.
func TestConfigSchemaCommand(t *testing.T) {
	t.Parallel()
	out, stderr, code := runIn(t, t.TempDir(), nil, "config", "schema")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var s struct {
		Schema string                     `json:"$schema"`
		Defs   map[string]json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if s.Schema != "https://json-schema.org/draft/2020-12/schema" || !strings.Contains(string(s.Defs["config.Config"]), `"additionalProperties": false`) {
		t.Errorf("schema %s, root %s", s.Schema, s.Defs["config.Config"])
	}
}

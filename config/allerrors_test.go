package config

import (
	"os"
	"strings"
	"testing"
)

// TestWalkAndValidationErrorsTogether: a file with problems found while walking it (a duration
// without a unit, a fraction where an integer goes, an unset ${VAR}) and problems found by
// validation elsewhere reports every one of them at once, each at its file:line:col; a
// validation problem of a value that could not be expanded (the unset variable's command,
// which is then not an allowed command) is not reported besides its cause.
func TestWalkAndValidationErrorsTogether(t *testing.T) {
	os.Unsetenv("AP_ALLERR_UNSET")
	data := `extensions:
  allowed_commands: [node]
pool:
  idle_timeout: 30
  max_clients: -1
mcp_servers:
  a:
    args: [x]
  b:
    command: node
    timeout: 10
  c:
    command: ${AP_ALLERR_UNSET}
  d:
    command: node
    retry: {attempts: 2.5, calls: sometimes}
`
	_, err := Parse("cfg.yaml", []byte(data))
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	for _, want := range []string{
		"cfg.yaml:4:17: pool.idle_timeout: 30 has no unit",
		"cfg.yaml:5:16: pool.max_clients: must not be negative",
		"cfg.yaml:8:5: mcp_servers.a: needs a command",
		"cfg.yaml:11:14: mcp_servers.b.timeout: 10 has no unit",
		"cfg.yaml:13:14: mcp_servers.c.command: ",
		"cfg.yaml:16:23: mcp_servers.d.retry.attempts: 2.5 is not a whole number",
		"cfg.yaml:16:35: mcp_servers.d.retry.calls: unknown",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("missing %q in:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "not in extensions.allowed_commands") {
		t.Errorf("the unexpanded command is reported again as not allowed:\n%s", msg)
	}
	for _, line := range strings.Split(msg, "\n") {
		if !strings.HasPrefix(line, "cfg.yaml:") || strings.Count(line, ":") < 4 {
			t.Errorf("a problem without file:line:col: %q", line)
		}
	}
}

// TestEveryTypeErrorReported: values of the wrong kind (a string where a list goes, a list
// where a string goes, a mapping where a list goes, words where a number goes, a number where
// a mapping goes) are each reported at their line with the key, all at once, besides the
// validation problems of the rest; the decoder alone stopped at the first. A server whose
// command could not be read is not also said to need a command.
func TestEveryTypeErrorReported(t *testing.T) {
	data := `mcp_servers:
  a: {command: node, args: x}
  b: {command: [node]}
  c: {command: node, env_passthrough: {A: 1}}
  d: {url: 7}
  e: 5
pool: {max_clients: lots, idle_timeout: 5m}
agents:
  r: {allow_tools: true}
`
	_, err := Parse("cfg.yaml", []byte(data))
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	for _, want := range []string{
		"cfg.yaml:2:28: mcp_servers.a.args: want a list, got a string",
		"cfg.yaml:3:16: mcp_servers.b.command: want a string, got a list",
		"cfg.yaml:4:39: mcp_servers.c.env_passthrough: want a list, got a mapping (key: value)",
		"cfg.yaml:5:12: mcp_servers.d.url: must be an http or https URL",
		"cfg.yaml:6:6: mcp_servers.e: want a mapping (key: value), got a whole number",
		"cfg.yaml:7:21: pool.max_clients: want a whole number, got a string",
		"cfg.yaml:9:20: agents.r.allow_tools: want a list, got true or false",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("missing %q in:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "mcp_servers.b: needs a command") {
		t.Errorf("the server whose command could not be read is also said to need one:\n%s", msg)
	}
}

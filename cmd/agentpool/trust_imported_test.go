package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// A JSON file the project's config imports is printed as written too: when its servers can
// only be read with their ${VAR} references expanded (a variable where the URL's host goes),
// trust does not print what they run, since that holds the values of the user's variables.
func TestTrustPrintsNoExpandedSecretOfImport(t *testing.T) {
	r := newTrustRepo(t)
	t.Setenv("AGENTPOOL_REVIEW_TOKEN", "s3cr3t-t0ken-value")
	t.Setenv("AGENTPOOL_REVIEW_HOST", "api.example.invalid")
	writeFile(t, filepath.Join(r.dir, "agentpool.yaml"), "import: [.mcp.json]\n")
	writeFile(t, filepath.Join(r.dir, ".mcp.json"), `{"mcpServers": {
  "remote": {"url": "https://${AGENTPOOL_REVIEW_HOST}/mcp"},
  "local": {"command": "sh", "args": ["-c", "exec srv --token ${AGENTPOOL_REVIEW_TOKEN}"]}
}}`)
	stdout, stderr, code := r.run(t, "trust")
	if code != 0 {
		t.Fatalf("trust: %s", stderr)
	}
	if strings.Contains(stdout+stderr, "s3cr3t-t0ken-value") {
		t.Errorf("trust printed the value of a variable:\n%s%s", stdout, stderr)
	}
	if !strings.Contains(stdout, "local (.mcp.json): (not shown") {
		t.Errorf("trust does not list the imported server as not shown:\n%s", stdout)
	}
}

// The cwd of a server that could only be read expanded is not printed either: it may hold the
// value of a variable as much as its command line.
func TestTrustPrintsNoExpandedCwd(t *testing.T) {
	r := newTrustRepo(t)
	t.Setenv("AGENTPOOL_REVIEW_TOKEN", "s3cr3t-t0ken-value")
	t.Setenv("AGENTPOOL_REVIEW_HOST", "api.example.invalid")
	writeFile(t, filepath.Join(r.dir, "agentpool.yaml"), "import: [.mcp.json]\nmcp_servers:\n  own:\n    command: sh\n    cwd: /tmp/${AGENTPOOL_REVIEW_TOKEN}\n")
	writeFile(t, filepath.Join(r.dir, ".mcp.json"), `{"mcpServers": {"remote": {"url": "https://${AGENTPOOL_REVIEW_HOST}/mcp"}}}`)
	stdout, stderr, code := r.run(t, "trust")
	if code != 0 {
		t.Fatalf("trust: %s", stderr)
	}
	if strings.Contains(stdout+stderr, "s3cr3t-t0ken-value") {
		t.Errorf("trust printed the value of a variable:\n%s%s", stdout, stderr)
	}
}

// A project skill's own servers (frontmatter and mcp.json) expand ${VAR} from the user's
// environment once trusted: agentpool trust names every variable they use, wherever it is
// written (args, env and header values, the URL), and prints none of their values.
func TestTrustNamesSkillServerVariables(t *testing.T) {
	r := newTrustRepo(t)
	for name, value := range map[string]string{"AP_ARGVAR": "argvalue-111", "AP_ENVVAR": "envvalue-222",
		"AP_URLHOST": "urlvalue-333.invalid", "AP_HDRVAR": "hdrvalue-444"} {
		t.Setenv(name, value)
	}
	writeFile(t, filepath.Join(r.dir, ".agents/skills/vars/SKILL.md"), `---
name: vars
description: Its servers use variables.
mcp-servers:
  local:
    command: sh
    args: ["-c", "exec srv --token ${AP_ARGVAR}"]
    env:
      API_KEY: ${AP_ENVVAR}
---
Body.
`)
	writeFile(t, filepath.Join(r.dir, ".agents/skills/vars/mcp.json"), `{"mcpServers": {"remote": {"url": "https://${AP_URLHOST}/mcp", "headers": {"Authorization": "Bearer ${AP_HDRVAR}"}}}}`)
	stdout, stderr, code := r.run(t, "trust")
	if code != 0 {
		t.Fatalf("trust: %s", stderr)
	}
	if strings.Contains(stdout+stderr, "value-") {
		t.Errorf("trust printed the value of a variable:\n%s%s", stdout, stderr)
	}
	for _, name := range []string{"AP_ARGVAR", "AP_ENVVAR", "AP_URLHOST", "AP_HDRVAR"} {
		if !strings.Contains(stdout, name) {
			t.Errorf("trust does not name the variable %s a project skill's server uses:\n%s", name, stdout)
		}
	}
}

// The sandbox paths of a server that could only be read expanded are not printed either:
// they may hold the value of a variable as much as its cwd.
func TestTrustPrintsNoExpandedSandboxPath(t *testing.T) {
	r := newTrustRepo(t)
	t.Setenv("AGENTPOOL_REVIEW_TOKEN", "s3cr3t-t0ken-value")
	t.Setenv("AGENTPOOL_REVIEW_HOST", "api.example.invalid")
	writeFile(t, filepath.Join(r.dir, "agentpool.yaml"), "import: [.mcp.json]\nmcp_servers:\n  own:\n    command: sh\n    sandbox:\n      read: [\"/tmp/${AGENTPOOL_REVIEW_TOKEN}\"]\n      required: false\n")
	writeFile(t, filepath.Join(r.dir, ".mcp.json"), `{"mcpServers": {"remote": {"url": "https://${AGENTPOOL_REVIEW_HOST}/mcp"}}}`)
	stdout, stderr, code := r.run(t, "trust")
	if code != 0 {
		t.Fatalf("trust: %s", stderr)
	}
	if strings.Contains(stdout+stderr, "s3cr3t-t0ken-value") {
		t.Errorf("trust printed the value of a variable:\n%s%s", stdout, stderr)
	}
	if lines := serverLines(stdout, "own"); !containsLine(lines, "    sandbox: (") {
		t.Errorf("trust's lines under own: %q; want its sandbox without its paths; output:\n%s", lines, stdout)
	}
}

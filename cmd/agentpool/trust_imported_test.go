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

package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// `agentpool trust` shows, under each stdio server the project declares, the sandbox it
// would run in, and for one that declares none, that it runs unconfined.
func TestTrustShowsSandbox(t *testing.T) {
	t.Parallel()
	r := newTrustRepo(t)
	writeFile(t, filepath.Join(r.dir, "agentpool.yaml"), fmt.Sprintf(`mcp_servers:
  cfgsrv:
    command: sh
    args: ["-c", "touch %s; exec %s"]
    sandbox: {write: [.], network: none}
`, r.markers[2], r.bin))
	stdout, stderr, code := r.run(t, "trust")
	if code != 0 {
		t.Fatalf("trust: exit %d: %s", code, stderr)
	}
	lines := strings.Split(stdout, "\n")
	var cfgsrv []string
	for i, l := range lines {
		if strings.HasPrefix(l, "  cfgsrv ") {
			for _, m := range lines[i+1:] {
				if !strings.HasPrefix(m, "    ") {
					break
				}
				cfgsrv = append(cfgsrv, m)
			}
		}
	}
	if !containsLine(cfgsrv, "    sandbox: read none; write .; network none; profile auto") {
		t.Errorf("trust's lines under cfgsrv: %q; want its sandbox; output:\n%s", cfgsrv, stdout)
	}
}

// containsLine reports whether one of lines starts with prefix.
func containsLine(lines []string, prefix string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}

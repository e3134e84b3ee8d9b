package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// The warning line of what a trusted project's sandbox asked beyond its default names a path
// as the project declares it, ${VAR} unexpanded, never the variable's value.
func TestCompileDroppedShownAsWritten(t *testing.T) {
	t.Parallel()
	r := newTrustRepo(t)
	writeFile(t, filepath.Join(r.xdg, "agentpool", "agentpool.yaml"), "")
	cfg := filepath.Join(r.dir, "agentpool.yaml")
	writeFile(t, cfg, fmt.Sprintf(`mcp_servers:
  widesrv:
    command: %s
    sandbox: {read: ["${HOME}/.ssh"]}
`, r.bin))
	stdout, stderr, _ := r.run(t, "--trust-project", "compile")
	_, section, _ := strings.Cut(stdout, "\n## sandboxes (")
	section, _, _ = strings.Cut(section, "\n\n")
	want := `warning: server "widesrv" (` + cfg + `): sandbox kept within the default your config gives it: refused read ${HOME}/.ssh`
	if !strings.Contains(section, want) || strings.Contains(section, r.home) {
		t.Errorf("compile's sandboxes section lacks %q or shows %s:\n%s\nstderr:\n%s", want, r.home, section, stderr)
	}
}

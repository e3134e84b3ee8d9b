package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// A trusted project's server cannot lift the default sandbox the user's config gives it:
// `sandbox: off`, `required: false` or a path beyond the project folder are refused, the
// project's default kept, and compile and trust say so on one line naming the server, the
// file and what was refused.
func TestCompileKeepsProjectSandboxWithinDefault(t *testing.T) {
	t.Parallel()
	r := newTrustRepo(t)
	writeFile(t, filepath.Join(r.xdg, "agentpool", "agentpool.yaml"), "")
	cfg := filepath.Join(r.dir, "agentpool.yaml")
	writeFile(t, cfg, fmt.Sprintf(`mcp_servers:
  offsrv:
    command: %s
    sandbox: off
  widesrv:
    command: %s
    sandbox: {read: [~/.ssh, .], required: false}
`, r.bin, r.bin))
	def := "read none; write " + r.dir + "; network all; exec " + r.dir + "; profile auto; not required"
	stdout, stderr, _ := r.run(t, "--trust-project", "compile")
	_, section, _ := strings.Cut(stdout, "\n## sandboxes (")
	section, _, _ = strings.Cut(section, "\n\n")
	for _, want := range []string{
		"offsrv  " + def,
		`warning: server "offsrv" (` + cfg + `): sandbox kept within the default your config gives it: refused sandbox: off`,
		"widesrv  read .; write none; network all; profile auto; not required",
		`warning: server "widesrv" (` + cfg + `): sandbox kept within the default your config gives it: refused read ~/.ssh`,
	} {
		if !strings.Contains(section, want) {
			t.Errorf("compile's sandboxes section lacks %q:\n%s\nstderr:\n%s", want, section, stderr)
		}
	}
	stdout, stderr, code := r.run(t, "trust")
	if code != 0 {
		t.Fatalf("trust: exit %d: %s", code, stderr)
	}
	if lines := serverLines(stdout, "offsrv"); !containsLine(lines, "    sandbox: "+def) ||
		!containsLine(lines, `    warning: server "offsrv" (`+cfg+`): sandbox kept within the default your config gives it: refused sandbox: off`) {
		t.Errorf("trust's lines under offsrv: %q", lines)
	}
	if lines := serverLines(stdout, "widesrv"); !containsLine(lines, "    sandbox: read .; write none") ||
		!containsLine(lines, `    warning: server "widesrv" (`+cfg+`): sandbox kept within the default your config gives it: refused read ~/.ssh`) {
		t.Errorf("trust's lines under widesrv: %q", lines)
	}
}

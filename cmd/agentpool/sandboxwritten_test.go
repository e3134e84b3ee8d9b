package main

import (
	"html"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
)

// compile and the status page show sandbox paths as declared, ${VAR} references unexpanded
// (as trust shows a declaration), in a server's own sandbox and in the config's default.
func TestSandboxShownAsWritten(t *testing.T) {
	t.Parallel()
	bin := testserver.Build(t)
	cfg := filepath.Join(t.TempDir(), "agentpool.yaml")
	writeFile(t, cfg, `sandbox: {read: ["${HOME}/data"], network: none}
mcp_servers:
  own:
    command: `+bin+`
    sandbox: {read: [~/projects], write: ["${HOME}/out"], network: none}
  bydefault:
    command: `+bin+`
`)
	want := map[string]string{
		"own":       "read ~/projects; write ${HOME}/out; network none",
		"bydefault": "read ${HOME}/data; write none; network none",
	}
	stdout, stderr, _ := runCLI(t, "--no-default-roots", "--config", cfg, "compile")
	_, section, _ := strings.Cut(stdout, "\n## sandboxes (")
	section, _, _ = strings.Cut(section, "\n\n")
	for server, w := range want {
		if r := rowOf(section, server); !strings.Contains(r, w) {
			t.Errorf("compile's sandbox row of %s: %q, want %q\nstderr:\n%s", server, r, w, stderr)
		}
	}
	if stdout, _, _ := runCLI(t, "--no-default-roots", "--config", cfg, "compile", "--json"); !strings.Contains(stdout, `"${HOME}/out"`) {
		t.Errorf("compile --json lacks the path as written ${HOME}/out:\n%s", stdout)
	}
	base, _ := startServeLogged(t, cfg)
	for server, w := range want {
		testwait.Within(t, time.Minute, "the status page's row of "+server+" with its sandbox as written", func() bool {
			return strings.Contains(row(html.UnescapeString(httpGet(t, base+"/")), "server", "<code>"+server+"</code>"), w)
		})
	}
}

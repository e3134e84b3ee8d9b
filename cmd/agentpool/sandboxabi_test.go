package main

import (
	"html"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/agentpool/agentpool/sandbox"
)

// Below Landlock ABI 4 (simulated: ABI 3) compile and the status page say what the kernel
// cannot enforce: a required sandbox with a port list is refused as not enforced, and a
// sandbox with the network allowed runs without binding denied. Not parallel: the simulation
// is in the environment.
func TestSandboxBelowABI4Shown(t *testing.T) {
	if sandbox.Probe().LandlockABI < 4 {
		t.Skip("the kernel's Landlock is below ABI 4")
	}
	t.Setenv("AGENTPOOL_SANDBOX_SIMULATE", "abi=3")
	bin := testserver.Build(t)
	cfg := filepath.Join(t.TempDir(), "agentpool.yaml")
	writeFile(t, cfg, `mcp_servers:
  listed:
    command: `+bin+`
    sandbox: {network: ["127.0.0.1:443"]}
  loose:
    command: `+bin+`
    sandbox: {read: [~/projects]}
`)
	stdout, stderr, _ := runCLI(t, "--no-default-roots", "--config", cfg, "compile")
	_, section, _ := strings.Cut(stdout, "\n## sandboxes (")
	section, _, _ = strings.Cut(section, "\n\n")
	for server, want := range map[string]string{
		"listed": "refused: server \"listed\": sandbox unavailable: the kernel lacks Landlock TCP rules (network list not enforced: Landlock ABI 3 < 4)",
		"loose":  "landlock ABI 3, bind not denied: Landlock ABI 3 < 4",
	} {
		if r := rowOf(section, server); !strings.Contains(r, want) {
			t.Errorf("compile's sandbox row of %s: %q, want %q\nstderr:\n%s", server, r, want, stderr)
		}
	}

	base, _ := startServeLogged(t, cfg)
	var r string
	testwait.Within(t, time.Minute, "the status page's row of loose saying bind not denied", func() bool {
		r = row(html.UnescapeString(httpGet(t, base+"/")), "server", "<code>loose</code>")
		return strings.Contains(r, "bind not denied: Landlock ABI 3 < 4")
	})
}

// rowOf returns the line of section that starts with name and a space.
func rowOf(section, name string) string {
	for l := range strings.Lines(section) {
		if strings.HasPrefix(l, name+" ") {
			return strings.TrimRight(l, "\n")
		}
	}
	return ""
}

package main

import (
	"html"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/testwait"
)

// On a kernel without Landlock (simulated), a server whose sandbox is required does not start,
// and the one line saying why is in `tools list`'s warning, serve's warning and on the status
// page, which shows it refused for good (no retry countdown); the unsandboxed server works. Not parallel: the simulation is in the environment.
func TestSandboxRefusedWithoutLandlock(t *testing.T) {
	t.Setenv("AGENTPOOL_SANDBOX_SIMULATE", "no-landlock")
	cfg := sandboxConfig(t)
	why := regexp.MustCompile(`boxed.*sandbox unavailable: the kernel lacks Landlock .*required: false`)

	stdout, stderr, err := runCLI(t, "--no-default-roots", "--config", cfg, "tools", "list")
	if !strings.Contains(stdout, "open__echo") || strings.Contains(stdout, "boxed__") {
		t.Errorf("tools list: %v\n%s\nwant open's tools and none of boxed", err, stdout)
	}
	if n := len(why.FindAllString(stderr, -1)); n != 1 {
		t.Errorf("tools list's stderr holds %d lines matching %s, want one:\n%s", n, why, stderr)
	}

	base, said := startServeLogged(t, cfg)
	testwait.Within(t, time.Minute, "serve's warning for boxed", func() bool { return why.MatchString(said.String()) })
	page := html.UnescapeString(httpGet(t, base+"/"))
	r := row(page, "server", "<code>boxed</code>")
	if !why.MatchString(r) {
		t.Errorf("the status page's row of boxed: %q; want a line matching %s", r, why)
	}
	// A refusal is for good: no "degraded", no retry countdown.
	if !strings.Contains(r, `<span class="badge bad">refused</span>`) || strings.Contains(r, "degraded") || strings.Contains(r, "retry in") || strings.Contains(r, "next retry") {
		t.Errorf("the status page's row of boxed: %q; want it refused, neither degraded nor retried", r)
	}
}

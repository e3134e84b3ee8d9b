package main

import (
	"encoding/json"
	"fmt"
	"html"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/sandbox"
)

// `agentpool trust` shows, under each stdio server the project declares, the sandbox it
// would run in (its own, else the project's default unless the user's config turns defaults
// off) and what this kernel applies of it (the Landlock ABI level).
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
	cfgsrv := serverLines(stdout, "cfgsrv")
	applied, err := sandbox.Preview("cfgsrv", &decl.Sandbox{Network: decl.Network{Mode: decl.NetworkNone}})
	if err != nil {
		t.Fatalf("this kernel cannot sandbox: %v", err)
	}
	if want := "    sandbox: read none; write .; network none; profile auto (" + applied.String() + ")"; !containsLine(cfgsrv, want) {
		t.Errorf("trust's lines under cfgsrv: %q; want %q; output:\n%s", cfgsrv, want, stdout)
	}
	// The user's config turns default sandboxes off (newTrustRepo): a server without a key runs
	// unconfined. Without that, it runs in the project's default sandbox, and trust says so.
	if lines := serverLines(stdout, "front.srv"); !containsLine(lines, "    sandbox: off") {
		t.Errorf("trust's lines under front.srv with the user's sandbox: off: %q; want sandbox: off", lines)
	}
	writeFile(t, filepath.Join(r.xdg, "agentpool", "agentpool.yaml"), "")
	stdout, stderr, code = r.run(t, "trust")
	if code != 0 {
		t.Fatalf("trust: exit %d: %s", code, stderr)
	}
	project, _ := sandbox.Preview("front.srv", &decl.Sandbox{Write: []string{r.dir}})
	if want := "    sandbox: the project's default: read none; write " + r.dir + "; network all; exec " + r.dir + "; profile auto; not required (" + project.String() + ")"; !containsLine(serverLines(stdout, "front.srv"), want) {
		t.Errorf("trust's lines under front.srv: %q; want %q", serverLines(stdout, "front.srv"), want)
	}
}

// serverLines returns the indented lines trust prints under the server name.
func serverLines(stdout, name string) []string {
	lines := strings.Split(stdout, "\n")
	var out []string
	for i, l := range lines {
		if strings.HasPrefix(l, "  "+name+" ") {
			for _, m := range lines[i+1:] {
				if !strings.HasPrefix(m, "    ") {
					break
				}
				out = append(out, m)
			}
		}
	}
	return out
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

// sandboxConfig writes a config with two faultservers, boxed (sandboxed to read ~/projects, no
// network) and open (no sandbox), and returns its path.
func sandboxConfig(t *testing.T) string {
	t.Helper()
	bin := testserver.Build(t)
	cfg := filepath.Join(t.TempDir(), "agentpool.yaml")
	writeFile(t, cfg, `mcp_servers:
  boxed:
    command: `+bin+`
    sandbox: {read: [~/projects], network: none}
  open:
    command: `+bin+`
`)
	return cfg
}

// compile shows each stdio server's sandbox and what the kernel applies of it (the Landlock
// ABI level), in its text and in --json.
func TestCompileShowsSandbox(t *testing.T) {
	t.Parallel()
	cfg := sandboxConfig(t)
	applied, err := sandbox.Preview("boxed", &decl.Sandbox{Network: decl.Network{Mode: decl.NetworkNone}})
	if err != nil {
		t.Fatalf("this kernel cannot sandbox: %v", err)
	}
	stdout, stderr, err := runCLI(t, "--no-default-roots", "--config", cfg, "compile")
	if err != nil {
		t.Fatalf("compile: %v\n%s", err, stderr)
	}
	_, section, _ := strings.Cut(stdout, "\n## sandboxes (2)\n")
	section, _, _ = strings.Cut(strings.TrimRight(section, "\n"), "\n\n")
	rows := strings.Split(section, "\n")
	if len(rows) != 2 || !regexp.MustCompile(`^boxed +read ~/projects; write none; network none; profile auto +`+regexp.QuoteMeta(applied.String())+`$`).MatchString(rows[0]) ||
		!regexp.MustCompile(`^open +off$`).MatchString(rows[1]) {
		t.Errorf("compile's sandboxes section: %q, want boxed's sandbox with %q and open's off; output:\n%s", rows, applied, stdout)
	}

	stdout, stderr, err = runCLI(t, "--no-default-roots", "--config", cfg, "compile", "--json")
	if err != nil {
		t.Fatalf("compile --json: %v\n%s", err, stderr)
	}
	var v struct {
		Sandboxes []struct {
			Server  string        `json:"server"`
			Sandbox *decl.Sandbox `json:"sandbox"`
			Applied string        `json:"applied"`
			ABI     int           `json:"landlock_abi"`
		} `json:"sandboxes"`
	}
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatalf("compile --json: %v\n%s", err, stdout)
	}
	if len(v.Sandboxes) != 2 || v.Sandboxes[0].Server != "boxed" || v.Sandboxes[0].Sandbox == nil ||
		v.Sandboxes[0].Sandbox.Network.Mode != decl.NetworkNone || v.Sandboxes[0].ABI != applied.ABI ||
		v.Sandboxes[1].Server != "open" || v.Sandboxes[1].Sandbox != nil {
		t.Errorf("compile --json sandboxes: %+v; want boxed's (ABI %d) and open's (none)", v.Sandboxes, applied.ABI)
	}
}

// The status page shows each server's sandbox and what the kernel applies of it.
func TestStatusPageShowsSandbox(t *testing.T) {
	t.Parallel()
	applied, err := sandbox.Preview("boxed", &decl.Sandbox{Network: decl.Network{Mode: decl.NetworkNone}})
	if err != nil {
		t.Fatalf("this kernel cannot sandbox: %v", err)
	}
	base, _ := startServeLogged(t, sandboxConfig(t))
	waitReady(t, base)
	page := html.UnescapeString(httpGet(t, base+"/"))
	if r := row(page, "server", "<code>boxed</code>"); !strings.Contains(r, "read ~/projects; write none; network none; profile auto") || !strings.Contains(r, applied.String()) {
		t.Errorf("the status page's row of boxed: %q; want its sandbox and %q", r, applied)
	}
	if r := row(page, "server", "<code>open</code>"); !strings.Contains(r, "<td>off</td>") {
		t.Errorf("the status page's row of open: %q; want its sandbox off", r)
	}
}

// The status page shows a session-scoped server's sandbox as its sessions would run it, the
// config's default filled in, before any session has started one.
func TestStatusPageShowsSessionServerDefaultSandbox(t *testing.T) {
	t.Parallel()
	cfg := filepath.Join(t.TempDir(), "agentpool.yaml")
	writeFile(t, cfg, `sandbox: {read: [~/projects], network: none}
mcp_servers:
  persession:
    command: `+testserver.Build(t)+`
    scope: session
`)
	base, _ := startServeLogged(t, cfg)
	waitReady(t, base)
	page := html.UnescapeString(httpGet(t, base+"/"))
	if r := row(page, "server", "<code>persession</code>"); !strings.Contains(r, "read ~/projects; write none; network none; profile auto") {
		t.Errorf("the status page's row of persession: %q; want the config's default sandbox", r)
	}
}

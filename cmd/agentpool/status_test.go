package main

import (
	"context"
	"html"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// chromiumBin returns the Chromium binary, failing the test when there is none: `make test`
// installs it (Debian package chromium), and a missing fixture must not pass quietly.
func chromiumBin(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("chromium is not installed: run make deps (it installs the Debian package chromium)")
	return ""
}

// chromium runs headless Chromium with args (then url) and returns its stdout. The flags keep it
// off the network beyond url: this machine's closed network refuses its background traffic.
func chromium(t *testing.T, url string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--user-data-dir=" + t.TempDir()}
	cmd := exec.CommandContext(ctx, chromiumBin(t), append(append(base, args...), url)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, tail(stderr.String(), 2000))
	}
	return string(out)
}

// row returns the table row (<tr class="kind">…</tr>) of dom that holds marker, or "".
func row(dom, kind, marker string) string {
	for _, m := range regexp.MustCompile(`(?s)<tr class="`+kind+`">.*?</tr>`).FindAllString(dom, -1) {
		if strings.Contains(m, marker) {
			return m
		}
	}
	return ""
}

// TestStatusPageInChromium: the real binary serves a config of a skill, one healthy stdio
// upstream and one that exits at once; once /readyz says ready and a go-sdk client holds a
// session, headless Chromium renders the status page with the skill, the healthy server
// connected, the dead one degraded with its error text, and the session's client. The page's
// screenshot is saved as the test's artifact (go test -artifacts keeps it).
func TestStatusPageInChromium(t *testing.T) {
	t.Parallel()
	chromiumBin(t) // fail before starting anything when it is missing
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "skills", "status-skill", "SKILL.md"),
		"---\nname: status-skill\ndescription: A skill the status page must list.\n---\nBody.\n")
	writeFile(t, filepath.Join(dir, "agentpool.yaml"), `
mcp_servers:
  healthy: {command: `+testserver.Build(t)+`}
  dead:
    command: sh
    args: [-c, "echo 'dead-marker: cannot open the database' >&2; exit 3"]
    retry: {attempts: 1, backoff: 10ms}
server: {ready_when_degraded: true} # ready once both were tried, the dead one degraded
`)
	cmd := exec.Command("agentpool", "--no-default-roots", "--skills-dir", filepath.Join(dir, "skills"),
		"--config", filepath.Join(dir, "agentpool.yaml"), "serve", "--http", "127.0.0.1:0")
	cmd.Env = append(withoutEnv(os.Environ(), "AGENTPOOL_TOKEN"), "HOME="+t.TempDir())
	endpoint := startServeCmd(t, cmd)
	base := strings.TrimSuffix(endpoint, "/mcp")

	// Ready once both eager servers were tried: a generous bound on a loaded machine, no claim.
	testwait.Within(t, 90*time.Second, "/readyz 200", func() bool {
		resp, err := http.Get(base + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("/readyz: %d", resp.StatusCode)
		}
		return resp.StatusCode == http.StatusOK
	})

	client := mcp.NewClient(&mcp.Implementation{Name: "chromium-probe-client", Version: "4.2.0"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "healthy__echo", Arguments: map[string]any{"text": "hi"}}); err != nil {
		t.Fatal(err)
	}

	dom := chromium(t, base+"/", "--dump-dom")
	if !strings.Contains(dom, "<code>status-skill</code>") {
		t.Errorf("the page lacks the skill status-skill:\n%s", dom)
	}
	if r := row(dom, "server", "<code>healthy</code>"); !strings.Contains(r, ">connected<") {
		t.Errorf("healthy's row does not say connected: %q", r)
	}
	if r := row(dom, "server", "<code>dead</code>"); !strings.Contains(r, ">degraded<") || !strings.Contains(r, "dead-marker: cannot open the database") {
		t.Errorf("dead's row does not say degraded with its error: %q", r)
	}
	if r := row(dom, "session", "chromium-probe-client"); !strings.Contains(r, "4.2.0") || !strings.Contains(r, ">session<") || !strings.Contains(r, cs.ID()[:8]) {
		t.Errorf("the session's row: %q, want client 4.2.0, scope session, id prefix %s", r, cs.ID()[:8])
	}
	if strings.Contains(dom, cs.ID()) {
		t.Errorf("the page shows the whole session id")
	}

	shot := filepath.Join(t.ArtifactDir(), "status-page.png")
	chromium(t, base+"/", "--screenshot="+shot, "--window-size=1280,2000", "--hide-scrollbars")
	if fi, err := os.Stat(shot); err != nil || fi.Size() == 0 {
		t.Fatalf("no screenshot at %s: %v", shot, err)
	}
	t.Logf("screenshot: %s", shot)
}

// probe GETs url and returns its status.
func probe(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// TestReadyzWaitsForEagerServers: serve starts its eager (not lazy) servers itself, and
// /readyz stays 503 while one is still starting (a server that never answers initialize, with
// a start timeout far beyond the test) while /healthz is 200; a lazy server is not started and
// does not hold readiness back.
func TestReadyzWaitsForEagerServers(t *testing.T) {
	t.Parallel()
	for _, lazy := range []bool{false, true} {
		dir := t.TempDir()
		starts := filepath.Join(dir, "starts")
		spec := "{command: " + hungServer(t, dir, starts) + ", startup_timeout: 10m}"
		if lazy {
			spec = "{command: " + hungServer(t, dir, starts) + ", startup_timeout: 10m, lazy: true, tools: [{name: ping}]}"
		}
		writeFile(t, filepath.Join(dir, "agentpool.yaml"), "mcp_servers:\n  hung: "+spec+"\n")
		cmd := exec.Command("agentpool", "--no-default-roots", "--config", filepath.Join(dir, "agentpool.yaml"), "serve", "--http", "127.0.0.1:0")
		cmd.Env = append(withoutEnv(os.Environ(), "AGENTPOOL_TOKEN"), "HOME="+t.TempDir())
		base := strings.TrimSuffix(startServeCmd(t, cmd), "/mcp")
		if got := probe(t, base+"/healthz"); got != http.StatusOK {
			t.Errorf("lazy %v: /healthz %d, want 200", lazy, got)
		}
		if !lazy {
			testwait.Within(t, 60*time.Second, "serve to start its eager server", func() bool { return len(lines(t, starts, "start")) > 0 })
			if got := probe(t, base+"/readyz"); got != http.StatusServiceUnavailable {
				t.Errorf("/readyz while the eager server starts: %d, want 503", got)
			}
			continue
		}
		testwait.Within(t, 60*time.Second, "/readyz 200 with only a lazy server", func() bool { return probe(t, base+"/readyz") == http.StatusOK })
		if got := lines(t, starts, "start"); len(got) != 0 {
			t.Errorf("the lazy server was started: %q", got)
		}
	}
}

// TestStatusPageShowsNoSecrets: the page of the real binary names failing servers and their
// errors, but never a URL's credentials, a header's value or an env value from the config.
func TestStatusPageShowsNoSecrets(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "agentpool.yaml"), `
mcp_servers:
  remote:
    url: http://user-secret:pass-secret@127.0.0.1:1/mcp?token=query-secret
    headers: {Authorization: "Bearer header-secret"}
    retry: {attempts: 1, backoff: 10ms}
  local:
    command: sh
    args: [-c, "exit 3"]
    env: {API_KEY: env-secret}
    retry: {attempts: 1, backoff: 10ms}
server: {ready_when_degraded: true} # ready once both were tried, degraded
`)
	cmd := exec.Command("agentpool", "--no-default-roots", "--config", filepath.Join(dir, "agentpool.yaml"), "serve", "--http", "127.0.0.1:0")
	cmd.Env = append(withoutEnv(os.Environ(), "AGENTPOOL_TOKEN"), "HOME="+t.TempDir())
	base := strings.TrimSuffix(startServeCmd(t, cmd), "/mcp")
	waitReady(t, base)
	resp, err := http.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	page := string(body)
	for _, name := range []string{"<code>remote</code>", "<code>local</code>"} {
		if r := row(page, "server", name); !strings.Contains(r, ">degraded<") {
			t.Errorf("%s is not shown degraded: %q", name, r)
		}
	}
	if r := row(page, "server", "<code>remote</code>"); !strings.Contains(r, "127.0.0.1:1/mcp") {
		t.Errorf("remote's error does not name its (redacted) URL: %q", r)
	}
	for _, secret := range []string{"user-secret", "pass-secret", "query-secret", "header-secret", "env-secret"} {
		if strings.Contains(page, secret) {
			t.Errorf("the page shows %q:\n%s", secret, page)
		}
	}
}

// TestStatusPageShowsAgentServers: an agent's own server (agents.<name>.mcp_servers) is on
// the status page under agents.<name>.<server>, degraded with its error, and /readyz waits
// for it to be tried as it does for the pool's.
func TestStatusPageShowsAgentServers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "agentpool.yaml"), `
agents:
  reviewer:
    mcp_servers:
      broken:
        command: sh
        args: [-c, "echo agent-dead-marker >&2; exit 3"]
        retry: {attempts: 1, backoff: 10ms}
server: {ready_when_degraded: true} # ready once it was tried, degraded
`)
	cmd := exec.Command("agentpool", "--no-default-roots", "--config", filepath.Join(dir, "agentpool.yaml"), "serve", "--http", "127.0.0.1:0")
	cmd.Env = append(withoutEnv(os.Environ(), "AGENTPOOL_TOKEN"), "HOME="+t.TempDir())
	base := strings.TrimSuffix(startServeCmd(t, cmd), "/mcp")
	waitReady(t, base)
	page := html.UnescapeString(httpGet(t, base+"/"))
	if r := row(page, "server", "<code>agents.reviewer.broken</code>"); !strings.Contains(r, ">degraded<") || !strings.Contains(r, "agent-dead-marker") {
		t.Errorf("the agent's server is not shown degraded with its error: %q", r)
	}
}

// waitReady polls base's /readyz until it answers 200 (a bound on the wait, not a speed).
func waitReady(t *testing.T, base string) {
	t.Helper()
	testwait.Within(t, 90*time.Second, "/readyz 200", func() bool { return probe(t, base+"/readyz") == http.StatusOK })
}

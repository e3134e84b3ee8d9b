package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// startServeLogged starts `agentpool --no-default-roots --config cfg [flags] serve --http
// 127.0.0.1:0` and returns its base URL (no path) and everything it writes on stderr, as it
// comes.
func startServeLogged(t *testing.T, cfg string, flags ...string) (string, *syncBuffer) {
	t.Helper()
	args := append(append([]string{"--no-default-roots", "--config", cfg}, flags...), "serve", "--http", "127.0.0.1:0")
	cmd := exec.Command("agentpool", args...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	said := &syncBuffer{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			_, _ = said.Write([]byte(sc.Text() + "\n"))
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		waitExit(t, cmd, "serve after SIGTERM")
		<-done
	})
	endpoint := regexp.MustCompile(`http://127\.0\.0\.1:[1-9][0-9]*/mcp`)
	testwait.Within(t, time.Minute, "serve to say its endpoint", func() bool { return endpoint.MatchString(said.String()) })
	return strings.TrimSuffix(endpoint.FindString(said.String()), "/mcp"), said
}

// readyz returns /readyz's status and body.
func readyz(t *testing.T, base string) (int, string) {
	t.Helper()
	resp, err := http.Get(base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestServeWarnsDegradedAndRecovered: serve prints the CLI's one-line warning for a server that
// fails at start, /readyz answers 503 naming it while it is degraded, and once the server can
// start, a client's listing recovers it: serve prints one line saying so and /readyz answers 200.
// With server.ready_when_degraded: true, /readyz answers 200 though the server is degraded.
func TestServeWarnsDegradedAndRecovered(t *testing.T) {
	t.Parallel()
	fault := testserver.Build(t)
	dir := t.TempDir()
	mark := filepath.Join(dir, "mark")
	flaky := writeExec(t, dir, "flaky.sh", "#!/bin/sh\n[ -f "+mark+" ] || { echo 'flaky: cannot find its data' >&2; exit 3; }\nexec "+fault+"\n", 0o755)
	decl := "mcp_servers:\n  good: {command: " + fault + "}\n  flaky: {command: " + flaky + ", retry: {attempts: 1, backoff: 10ms}}\n"
	cfg := filepath.Join(dir, "agentpool.yaml")
	writeFile(t, cfg, decl)

	base, said := startServeLogged(t, cfg)
	testwait.Within(t, time.Minute, "serve's warning for flaky", func() bool {
		return strings.Contains(said.String(), "agentpool: warning: flaky: ")
	})
	if line := regexp.MustCompile(`agentpool: warning: flaky: .*`).FindString(said.String()); !strings.Contains(line, "cannot find its data") {
		t.Errorf("the warning does not give the server's cause: %q", line)
	}
	testwait.Within(t, time.Minute, "/readyz to name the degraded server", func() bool {
		code, body := readyz(t, base)
		return code == http.StatusServiceUnavailable && strings.Contains(body, "flaky")
	})

	if err := os.WriteFile(mark, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cs := connectAt(t, base+"/mcp")
	testwait.Within(t, time.Minute, "flaky's recovery, seen by a client's listing", func() bool {
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			return false
		}
		for _, tool := range res.Tools {
			if tool.Name == "flaky__echo" {
				return true
			}
		}
		return false
	})
	testwait.Within(t, time.Minute, "serve's line for the recovery", func() bool { return strings.Contains(said.String(), "agentpool: flaky: recovered") })
	if n := strings.Count(said.String(), "agentpool: warning: flaky: "); n != 1 {
		t.Errorf("%d warnings for flaky, want 1:\n%s", n, said.String())
	}
	testwait.Within(t, time.Minute, "/readyz 200 after the recovery", func() bool { code, _ := readyz(t, base); return code == http.StatusOK })

	os.Remove(mark)
	lenient := filepath.Join(dir, "lenient.yaml")
	writeFile(t, lenient, decl+"server: {ready_when_degraded: true}\n")
	base, said = startServeLogged(t, lenient)
	testwait.Within(t, time.Minute, "serve's warning for flaky", func() bool {
		return strings.Contains(said.String(), "agentpool: warning: flaky: ")
	})
	testwait.Within(t, time.Minute, "/readyz 200 with server.ready_when_degraded", func() bool { code, _ := readyz(t, base); return code == http.StatusOK })
}

// TestServeWarnsOnceForSameNamedAgentServers: two agents each declare a server named x, one
// that cannot start and one that runs. serve warns once for the degraded one, naming it by its
// agent (agents.a.x), and never says an x recovered, across later changes (another server's
// recovery): the running one is not the degraded one's recovery.
func TestServeWarnsOnceForSameNamedAgentServers(t *testing.T) {
	t.Parallel()
	fault := testserver.Build(t)
	dir := t.TempDir()
	mark := filepath.Join(dir, "mark")
	flaky := writeExec(t, dir, "flaky.sh", "#!/bin/sh\n[ -f "+mark+" ] || { echo 'flaky: cannot find its data' >&2; exit 3; }\nexec "+fault+"\n", 0o755)
	cfg := filepath.Join(dir, "agentpool.yaml")
	writeFile(t, cfg, "mcp_servers:\n  flaky: {command: "+flaky+", retry: {attempts: 1, backoff: 10ms}}\n"+
		"agents:\n  a:\n    mcp_servers:\n      x: {command: sh, args: [-c, \"exit 3\"], retry: {attempts: 1, backoff: 10ms}}\n"+
		"  b:\n    mcp_servers:\n      x: {command: "+fault+"}\n")

	base, said := startServeLogged(t, cfg)
	testwait.Within(t, time.Minute, "/readyz to name both degraded servers", func() bool {
		code, body := readyz(t, base)
		return code == http.StatusServiceUnavailable && strings.Contains(body, "flaky") && strings.Contains(body, "x")
	})
	if err := os.WriteFile(mark, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cs := connectAt(t, base+"/mcp")
	testwait.Within(t, time.Minute, "flaky's recovery, seen by a client's listing", func() bool {
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			return false
		}
		return slices.ContainsFunc(res.Tools, func(tool *mcp.Tool) bool { return tool.Name == "flaky__echo" })
	})
	testwait.Within(t, time.Minute, "serve's line for flaky's recovery", func() bool { return strings.Contains(said.String(), "agentpool: flaky: recovered") })
	if n := strings.Count(said.String(), "agentpool: warning: agents.a.x: "); n != 1 || strings.Contains(said.String(), "x: recovered") {
		t.Errorf("%d warnings for agents.a.x, want 1, and no recovery of an x:\n%s", n, said.String())
	}
	countLines(t, said.String(), nil, "x", "agents.b.x")
}

// TestReadyWhenDegradedFollowsReload: server.ready_when_degraded set by a reload of the config
// file takes effect: /readyz, 503 for a degraded eager server, answers 200 once the edit is
// applied, and 503 again once it is taken back.
func TestReadyWhenDegradedFollowsReload(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	decl := "mcp_servers:\n  dead: {command: sh, args: [-c, \"exit 3\"], retry: {attempts: 1, backoff: 10ms}}\n"
	cfg := filepath.Join(dir, "agentpool.yaml")
	writeFile(t, cfg, decl)
	base, _ := startServeLogged(t, cfg)
	testwait.Within(t, time.Minute, "/readyz to name the degraded server", func() bool {
		code, body := readyz(t, base)
		return code == http.StatusServiceUnavailable && strings.Contains(body, "dead")
	})
	replaceFile(t, cfg, decl+"server: {ready_when_degraded: true}\n")
	waitReload(t, "/readyz 200 after the reload set server.ready_when_degraded", func() bool { code, _ := readyz(t, base); return code == http.StatusOK })
	replaceFile(t, cfg, decl)
	waitReload(t, "/readyz 503 after the reload took it back", func() bool { code, _ := readyz(t, base); return code == http.StatusServiceUnavailable })
}

// killableConfig writes a config whose pool server p and agent a's server x run the fault
// server while their mark file exists and otherwise fail at start, naming their missing data;
// agent b declares a healthy server also named x. It returns the config's path and the marks
// of p and x, both present.
func killableConfig(t *testing.T) (cfg, markP, markX string) {
	t.Helper()
	fault := testserver.Build(t)
	dir := t.TempDir()
	script := func(name string) (string, string) {
		mark := filepath.Join(dir, name+".mark")
		writeFile(t, mark, "")
		return writeExec(t, dir, name+".sh", "#!/bin/sh\n[ -f "+mark+" ] || { echo '"+name+": cannot find its data' >&2; exit 3; }\nexec "+fault+"\n", 0o755), mark
	}
	p, markP := script("p")
	x, markX := script("x")
	cfg = filepath.Join(dir, "agentpool.yaml")
	writeFile(t, cfg, "mcp_servers:\n  p: {command: "+p+", retry: {attempts: 1, backoff: 10ms}}\n"+
		"agents:\n  a:\n    mcp_servers:\n      x: {command: "+x+", retry: {attempts: 1, backoff: 10ms}}\n"+
		"  b:\n    mcp_servers:\n      x: {command: "+fault+"}\n")
	return cfg, markP, markX
}

// killAndRestore kills the process behind cs's tool pidTool (the fault server's pid tool) with
// SIGKILL after removing mark, so that the server cannot start again; waits, listing cs's tools
// (which reconnects it), for serve's warning naming label in said; then puts mark back and waits
// for serve's line saying label recovered, which serve's own retry of the degraded server
// brings about, with no client asking.
func killAndRestore(t *testing.T, cs *mcp.ClientSession, pidTool, mark, label string, said *syncBuffer) {
	t.Helper()
	pid, err := strconv.Atoi(callText(t, cs, pidTool, nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(mark); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	testwait.Within(t, time.Minute, "serve's warning for "+label, func() bool {
		_, _ = cs.ListTools(context.Background(), nil)
		return strings.Contains(said.String(), "agentpool: warning: "+label+": ")
	})
	if line := regexp.MustCompile(`agentpool: warning: ` + regexp.QuoteMeta(label) + `: .*`).FindString(said.String()); !strings.Contains(line, "cannot find its data") {
		t.Errorf("the warning does not give the server's cause: %q", line)
	}
	writeFile(t, mark, "")
	testwait.Within(t, time.Minute, "serve's line for "+label+"'s recovery", func() bool {
		return strings.Contains(said.String(), "agentpool: "+label+": recovered")
	})
}

// countLines checks that said holds exactly one warning and one recovery line for each of
// labels, and no line for the others (servers that never failed, or a server's bare name
// where its agent's must be said).
func countLines(t *testing.T, said string, labels []string, others ...string) {
	t.Helper()
	for _, l := range labels {
		if w, r := strings.Count(said, "agentpool: warning: "+l+": "), strings.Count(said, "agentpool: "+l+": recovered"); w != 1 || r != 1 {
			t.Errorf("%s: %d warnings and %d recoveries, want 1 each:\n%s", l, w, r, said)
		}
	}
	for _, l := range others {
		if strings.Contains(said, "agentpool: warning: "+l+": ") || strings.Contains(said, "agentpool: "+l+": recovered") {
			t.Errorf("a line for %s, which never failed:\n%s", l, said)
		}
	}
}

// TestServeWarnsKilledServers: over HTTP, a pool server and an agent's own server, each killed
// (a real SIGKILL) while it cannot start again, get serve's one-line warning once, named so
// that the agent's server is told from another agent's of the same name, and one line when
// they come back, with no other change in the pool to wake serve.
func TestServeWarnsKilledServers(t *testing.T) {
	t.Parallel()
	cfg, markP, markX := killableConfig(t)
	base, said := startServeLogged(t, cfg)
	pool, agent := connectAt(t, base+"/mcp"), connectAt(t, base+"/mcp/agents/a")
	testwait.Within(t, time.Minute, "/readyz 200 with every server up", func() bool { code, _ := readyz(t, base); return code == http.StatusOK })
	killAndRestore(t, pool, "p__pid", markP, "p", said)
	killAndRestore(t, agent, "x__pid", markX, "agents.a.x", said)
	countLines(t, said.String(), []string{"p", "agents.a.x"}, "x", "agents.b.x")
}

// TestServeStdioAgentWarnsKilledServer: serve --stdio --agent a warns once when a's own server
// is killed and cannot start again, and says once that it recovered.
func TestServeStdioAgentWarnsKilledServer(t *testing.T) {
	t.Parallel()
	cfg, _, markX := killableConfig(t)
	cs, said := serveStdioLogged(t, nil, "--no-default-roots", "--config", cfg, "serve", "--stdio", "--agent", "a")
	killAndRestore(t, cs, "x__pid", markX, "agents.a.x", said)
	countLines(t, said.String(), []string{"agents.a.x"}, "x", "p", "agents.b.x")
}

// TestReadyzNamesAgentServer: /readyz names a degraded server of an agent's own as the page
// and serve's lines do, agents.<agent>.<name>, not by its bare name, which another agent's
// server (here b's healthy x) or a pool server may have too.
func TestReadyzNamesAgentServer(t *testing.T) {
	t.Parallel()
	cfg, _, markX := killableConfig(t)
	if err := os.Remove(markX); err != nil {
		t.Fatal(err)
	}
	base, _ := startServeLogged(t, cfg)
	var body string
	testwait.Within(t, time.Minute, "/readyz 503 once the servers were tried", func() bool {
		var code int
		code, body = readyz(t, base)
		return code == http.StatusServiceUnavailable && strings.Contains(body, "degraded")
	})
	if !strings.Contains(body, "degraded: agents.a.x ") {
		t.Errorf("/readyz does not name agent a's server x as agents.a.x: %q", body)
	}
}

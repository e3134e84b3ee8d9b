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
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: base + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
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
// that cannot start and one that runs. serve warns once for the degraded one and never says x
// recovered, across later changes (another server's recovery): the running one is not the
// degraded one's recovery.
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
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: base + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	testwait.Within(t, time.Minute, "flaky's recovery, seen by a client's listing", func() bool {
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			return false
		}
		return slices.ContainsFunc(res.Tools, func(tool *mcp.Tool) bool { return tool.Name == "flaky__echo" })
	})
	testwait.Within(t, time.Minute, "serve's line for flaky's recovery", func() bool { return strings.Contains(said.String(), "agentpool: flaky: recovered") })
	if n := strings.Count(said.String(), "agentpool: warning: x: "); n != 1 || strings.Contains(said.String(), "agentpool: x: recovered") {
		t.Errorf("%d warnings for x, want 1, and no recovery of x:\n%s", n, said.String())
	}
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

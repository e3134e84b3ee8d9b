package main

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/agentpool/agentpool/config"
)

// serveAuth refuses a non-loopback listener without server.auth.resource (the resource would
// then be the listener's address, which no client names); loopback, or a resource, is fine.
func TestServeAuthNeedsResourceOffLoopback(t *testing.T) {
	t.Parallel()
	a := &config.ServerAuth{Issuer: "https://idp.example", Scopes: []string{"mcp"}}
	for _, addr := range []string{"0.0.0.0:7433", "10.0.0.5:7433", ":7433", "[::]:7433"} {
		if _, err := serveAuth(a, addr, nil); err == nil || !strings.Contains(err.Error(), "server.auth.resource is required") {
			t.Errorf("serve on %s without a resource: %v, want server.auth.resource required", addr, err)
		}
	}
	for _, addr := range []string{"127.0.0.1:7433", "localhost:0", "[::1]:7433"} {
		if got, err := serveAuth(a, addr, nil); err != nil || got == nil || got.Verify == nil {
			t.Errorf("serve on %s: %v, %v", addr, got, err)
		}
	}
	withResource := *a
	withResource.Resource = "https://agentpool.example"
	if _, err := serveAuth(&withResource, "0.0.0.0:7433", nil); err != nil {
		t.Errorf("serve on 0.0.0.0 with a resource: %v", err)
	}
}

// startOrExit starts `agentpool serve` with args and HOME set to home (and env) and returns
// what it printed on stderr up to its endpoint line, and whether it got there; a serve that
// exits first returns what it printed and false.
func startOrExit(t *testing.T, home string, env []string, args ...string) (string, bool) {
	t.Helper()
	cmd := exec.Command("agentpool", append([]string{"--no-default-roots"}, append([]string{"serve"}, args...)...)...)
	cmd.Env = append(append(os.Environ(), "HOME="+home, "AGENTPOOL_TOKEN="), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var said []string
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		said = append(said, sc.Text())
		if strings.Contains(sc.Text(), "serving MCP at http://") {
			go func() { // keep draining stderr
				for sc.Scan() {
				}
			}()
			_ = cmd.Process.Signal(syscall.SIGTERM)
			waitExit(t, cmd, "serve after SIGTERM")
			return strings.Join(said, "\n"), true
		}
	}
	waitExit(t, cmd, "serve")
	return strings.Join(said, "\n"), false
}

// TestServeRefusesOpenListener: serve on a listener that is not loopback (0.0.0.0, every
// interface) with neither a token nor OAuth refuses to start and says why and what to do;
// a token, or --insecure-no-auth (which it warns about), lets it start; loopback needs
// neither.
func TestServeRefusesOpenListener(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	said, started := startOrExit(t, home, nil, "--http", "0.0.0.0:0")
	if started {
		t.Errorf("serve --http 0.0.0.0:0 with no token started:\n%s", said)
	}
	for _, want := range []string{"0.0.0.0:0", "not loopback", "--token", "server.auth", "--insecure-no-auth"} {
		if !strings.Contains(said, want) {
			t.Errorf("refusal does not say %q:\n%s", want, said)
		}
	}
	if said, started := startOrExit(t, home, nil, "--http", "0.0.0.0:0", "--token", "secret"); !started {
		t.Errorf("serve on 0.0.0.0 with --token did not start:\n%s", said)
	}
	if said, started := startOrExit(t, home, []string{"AGENTPOOL_TOKEN=secret"}, "--http", "0.0.0.0:0"); !started {
		t.Errorf("serve on 0.0.0.0 with $AGENTPOOL_TOKEN did not start:\n%s", said)
	}
	said, started = startOrExit(t, home, nil, "--http", "0.0.0.0:0", "--insecure-no-auth")
	if !started || !strings.Contains(said, "--insecure-no-auth") {
		t.Errorf("serve on 0.0.0.0 with --insecure-no-auth: started %v, want a start and a warning naming the flag:\n%s", started, said)
	}
	if said, started := startOrExit(t, home, nil, "--http", "127.0.0.1:0"); !started {
		t.Errorf("serve on loopback with no token did not start:\n%s", said)
	}
}

package main

import (
	"bufio"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// startServeCmd starts cmd, an `agentpool … serve --http 127.0.0.1:0` whose arguments and
// environment the caller set, reads its stderr until it prints its endpoint, and returns the
// endpoint URL; stderr is drained afterwards. SIGTERM ends it when the test does, unless the
// test ended it first. A serve that prints no endpoint fails the test with what it said.
func startServeCmd(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	endpoint := regexp.MustCompile(`http://127\.0\.0\.1:[1-9][0-9]*/mcp`)
	var url string
	var said []string
	for url == "" && sc.Scan() {
		said = append(said, sc.Text())
		url = endpoint.FindString(sc.Text())
	}
	go func() { // keep draining stderr
		for sc.Scan() {
		}
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			waitExit(t, cmd, "serve after SIGTERM")
		}
	})
	if url == "" {
		t.Fatalf("serve printed no endpoint URL:\n%s", strings.Join(said, "\n"))
	}
	return url
}

// startServeHTTP runs `agentpool <args> serve --http 127.0.0.1:0` with HOME set to home and
// returns its endpoint URL and the process (see startServeCmd).
func startServeHTTP(t *testing.T, home string, args ...string) (string, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command("agentpool", append(args, "serve", "--http", "127.0.0.1:0")...)
	cmd.Env = append(os.Environ(), "HOME="+home)
	return startServeCmd(t, cmd), cmd
}

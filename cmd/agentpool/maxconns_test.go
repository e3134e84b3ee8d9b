package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/internal/connlimit"
)

// openFDs counts the open file descriptors of process pid.
func openFDs(t *testing.T, pid int) int {
	t.Helper()
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	return len(fds)
}

// TestServeMaxConnections: with server.max_connections 8 and 120 connections opened and held
// idle, serve holds at most 8 + connlimit.Spare of them (its open files, from /proc), /healthz
// still answers 200 on a new connection, and an MCP request is refused with 503 naming the
// key.
func TestServeMaxConnections(t *testing.T) {
	t.Parallel()
	cfg := filepath.Join(t.TempDir(), "agentpool.yaml")
	writeFile(t, cfg, "server:\n  max_connections: 8\n")
	serve, url, _ := startServeIn(t, "", []string{"HOME=" + t.TempDir()}, "--no-default-roots", "--config", cfg, "serve", "--http", "127.0.0.1:0")
	cmd := serve.Process.Pid
	base := strings.TrimSuffix(url, "/mcp")
	addr := strings.TrimPrefix(base, "http://")
	before := openFDs(t, cmd)
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	for range 120 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Get(base + "/healthz")
	if err != nil {
		t.Fatalf("/healthz past the cap: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/healthz past the cap: %d, want 200", resp.StatusCode)
	}
	resp, err = client.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatalf("POST /mcp past the cap: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "server.max_connections") {
		t.Errorf("POST /mcp past the cap: %d %q, want 503 naming server.max_connections", resp.StatusCode, body)
	}
	// Every connection was accepted by now (the two requests came after them); none has timed
	// out (10 s for headers).
	bound := before + 8 + connlimit.Spare + 4 // a few for what else serve opens meanwhile
	if n := openFDs(t, cmd); n > bound {
		t.Errorf("serve holds %d files with 120 idle connections, want at most %d (%d before)", n, bound, before)
	}
}

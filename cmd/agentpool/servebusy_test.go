package main

import (
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeBusyPortStartsNothing: serve on an address already in use fails with the listen
// error, and starts none of its servers (an eager server writes a marker when it starts):
// nothing is spawned for a listener serve never got.
func TestServeBusyPortStartsNothing(t *testing.T) {
	t.Parallel()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	dir := t.TempDir()
	marker := filepath.Join(dir, "started")
	cfg := filepath.Join(dir, "agentpool.yaml")
	writeFile(t, cfg, "mcp_servers:\n  eager: {command: sh, args: [-c, 'touch "+marker+"; exec sleep 60']}\n")
	cmd := exec.Command("agentpool", "--config", cfg, "--no-default-roots", "serve", "--http", busy.Addr().String())
	cmd.Env = append(os.Environ(), "HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "address already in use") {
		t.Fatalf("serve on a busy address: %v\n%s", err, out)
	}
	// A server's shell holds the marker in its command line until it has touched the marker:
	// one started at the end is either still seen running or has left the file.
	if _, err := os.Stat(marker); err == nil || len(markedProcesses(marker)) > 0 {
		t.Error("serve started a server before it had its listener (and then failed to listen)")
	}
}

// TestJSONLogsEndInJSON: with --log-format json, the error that ends the program (serve on a
// busy address) is a JSON record on stderr like every other line.
func TestJSONLogsEndInJSON(t *testing.T) {
	t.Parallel()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	cmd := exec.Command("agentpool", "--log-format", "json", "--no-default-roots", "--skills-dir", t.TempDir(), "serve", "--http", busy.Addr().String())
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err == nil {
		t.Fatal("serve on a busy address succeeded")
	}
	if !strings.Contains(stderr.String(), "address already in use") {
		t.Fatalf("no listen error on stderr:\n%s", stderr.String())
	}
	for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("a stderr line that is not JSON: %q", line)
		}
	}
}

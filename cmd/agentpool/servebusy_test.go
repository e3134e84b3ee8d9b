package main

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServeBusyPortStartsNothing: serve on an address already in use fails with the listen
// error, and starts none of its servers (an eager server writes a marker when it starts):
// nothing is spawned for a listener serve never got.
func TestServeBusyPortStartsNothing(t *testing.T) {
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
	time.Sleep(200 * time.Millisecond) // a server started at the end would have touched it by now
	if _, err := os.Stat(marker); err == nil {
		t.Error("serve started a server before it had its listener (and then failed to listen)")
	}
}

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runCLIWithin is runCLI bounded by d: a command that waits to retry shows as the deadline.
func runCLIWithin(t *testing.T, d time.Duration, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return runCLIContext(ctx, args...)
}

// writeExec writes body to dir/name with mode and returns its path.
func writeExec(t *testing.T, dir, name, body string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), mode); err != nil {
		t.Fatal(err)
	}
	return p
}

// lines returns the lines of file starting with prefix (none when it does not exist).
func lines(t *testing.T, file, prefix string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return out
}

// hungServer writes a stdio "server" that records its start in the file starts and then never
// answers initialize.
func hungServer(t *testing.T, dir, starts string) string {
	return writeExec(t, dir, "hung.sh", fmt.Sprintf("#!/bin/sh\necho \"start $1\" >> %q\nexec sleep 3600\n", starts), 0o755)
}

// TestHungServerToolsCallStartsOnce: `tools call` on a hung stdio server fails after one start
// (one startup timeout), not Retry.Attempts of them with backoff. The wall-clock figure is
// logged, not asserted.
func TestHungServerToolsCallStartsOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	starts := filepath.Join(dir, "starts")
	cfg := writeExec(t, dir, "agentpool.yaml", fmt.Sprintf(`mcp_servers:
  hung:
    command: %s
    startup_timeout: 1s
    timeout: 100ms
`, hungServer(t, dir, starts)), 0o644)
	begin := time.Now()
	_, stderr, err := runCLI(t, "--no-default-roots", "--config", cfg, "tools", "call", "hung__anything", "{}")
	t.Log(stderr)
	t.Logf("tools call on a hung stdio server (startup_timeout 1s): failed after %v", time.Since(begin))
	if err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("tools call = %v; want the tool not found", err)
	}
	if got := lines(t, starts, "start"); len(got) != 1 {
		t.Fatalf("%d starts, want 1: %q", len(got), got)
	}
}

// TestMissingBinaryToolsCall: a command that does not exist is not retried (the backoff of an
// hour would show as the deadline). The wall-clock figure is logged, not asserted.
func TestMissingBinaryToolsCall(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := writeExec(t, dir, "agentpool.yaml", fmt.Sprintf(`mcp_servers:
  gone:
    command: %s
    retry: {attempts: 3, backoff: 1h}
`, filepath.Join(dir, "no-such-server")), 0o644)
	begin := time.Now()
	_, stderr, err := runCLIWithin(t, 20*time.Second, "--no-default-roots", "--config", cfg, "tools", "call", "gone__anything", "{}")
	t.Logf("tools call on a missing binary: failed after %v", time.Since(begin))
	if strings.Contains(fmt.Sprint(err)+stderr, "deadline exceeded") {
		t.Fatalf("the command waited to retry: %v\n%s", err, stderr)
	}
	if err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("tools call = %v; want the tool not found", err)
	}
	if !strings.Contains(stderr, "no such file or directory") {
		t.Fatalf("stderr lacks the cause:\n%s", stderr)
	}
}

// TestTwoHungServersStartConcurrently: `tools list` asks the servers concurrently, so two hung
// servers cost one startup timeout. Each server waits (without answering initialize) until both
// have started and then records that it met the other: started one after the other, the first
// would be killed at its startup timeout before the second started, and only one would meet.
func TestTwoHungServersStartConcurrently(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	starts := filepath.Join(dir, "starts")
	script := writeExec(t, dir, "hung.sh", fmt.Sprintf(`#!/bin/sh
echo "start $1" >> %[1]q
while [ "$(grep -c '^start' %[1]q)" -lt 2 ]; do sleep 0.02; done
echo "met $1" >> %[1]q
exec sleep 3600
`, starts), 0o755)
	cfg := writeExec(t, dir, "agentpool.yaml", fmt.Sprintf(`mcp_servers:
  a: {command: %[1]s, args: [a], startup_timeout: 5s}
  b: {command: %[1]s, args: [b], startup_timeout: 5s}
`, script), 0o644)
	begin := time.Now()
	_, stderr, err := runCLI(t, "--no-default-roots", "--config", cfg, "tools", "list")
	t.Logf("tools list with two hung servers (startup_timeout 5s each): done after %v", time.Since(begin))
	if ee, ok := err.(*exitError); !ok || ee.code != exitPartial {
		t.Fatalf("tools list: %v; want exit code %d (partial)", err, exitPartial)
	}
	for _, s := range []string{"a", "b"} {
		if !strings.Contains(stderr, "warning: "+s+": ") {
			t.Errorf("no warning for server %s:\n%s", s, stderr)
		}
	}
	if got := lines(t, starts, "start"); len(got) != 2 {
		t.Fatalf("%d starts, want one per server: %q", len(got), got)
	}
	if got := lines(t, starts, "met"); len(got) != 2 {
		t.Fatalf("%q: the servers did not start concurrently", got)
	}
}

// TestReadUnknownSchemeStartsNoServer: `read typo://x` with three configured stdio servers
// starts none of them, and says which schemes are known and how to reach a server's resource.
func TestReadUnknownSchemeStartsNoServer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	starts := filepath.Join(dir, "starts")
	script := hungServer(t, dir, starts)
	cfg := writeExec(t, dir, "agentpool.yaml", fmt.Sprintf(`mcp_servers:
  a: {command: %[1]s, args: [a]}
  b: {command: %[1]s, args: [b]}
  c: {command: %[1]s, args: [c]}
`, script), 0o644)
	_, _, err := runCLIWithin(t, time.Minute, "--no-default-roots", "--config", cfg, "read", "typo://x")
	if err == nil || !strings.Contains(err.Error(), `unknown URI scheme "typo"`) || !strings.Contains(err.Error(), "mcp://<server>/<uri>") {
		t.Fatalf("read typo://x = %v", err)
	}
	if got := lines(t, starts, "start"); len(got) != 0 {
		t.Fatalf("read typo://x started %q", got)
	}
}

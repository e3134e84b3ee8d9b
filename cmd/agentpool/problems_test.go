package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/agentpool/agentpool/view"
)

// runBinary runs the agentpool binary (the test binary, installed on PATH by testscript.Main)
// with args in dir, HOME set to an empty folder, and returns its stdout, stderr and exit code.
func runBinary(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command("agentpool", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), cmd.ProcessState.ExitCode()
}

// waitExit waits for the started cmd to end; after 20 seconds it kills it and fails, saying
// what did not end.
func waitExit(t *testing.T, cmd *exec.Cmd, what string) {
	t.Helper()
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("%s did not end", what)
	}
}

// failingServerConfig writes a config with one stdio server that writes 20 KB of stderr,
// ending in a fatal line, and exits 3.
func failingServerConfig(t *testing.T, dir string) string {
	t.Helper()
	script := writeExec(t, dir, "bad.sh", "#!/bin/sh\n"+
		"i=0; while [ $i -lt 400 ]; do echo \"noise line $i of a chatty server ..........\" >&2; i=$((i+1)); done\n"+
		"echo 'fatal: cannot open database /var/db' >&2\nexit 3\n", 0o755)
	return writeExec(t, dir, "agentpool.yaml", fmt.Sprintf(`mcp_servers:
  bad:
    command: %s
    retry:
      attempts: 1
`, script), 0o644)
}

// TestFailingServerReportedOnce: a server that fails to start is reported once, as one line
// naming it and its stderr's fatal line; the list is still printed and the exit code is 2.
// --json carries the whole error; --verbose prints the chain and the libraries' logs.
func TestFailingServerReportedOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := failingServerConfig(t, dir)
	stdout, stderr, code := runBinary(t, dir, "--no-default-roots", "--config", cfg, "tools", "list")
	if code != exitPartial {
		t.Errorf("exit code %d, want %d", code, exitPartial)
	}
	if !strings.HasPrefix(stdout, "TOOL") {
		t.Errorf("stdout %q: want the (empty) table", stdout)
	}
	want := "agentpool: warning: bad: server failed to start (exited with code 3): fatal: cannot open database /var/db\n"
	if stderr != want {
		t.Errorf("stderr:\n%s\nwant exactly:\n%s", stderr, want)
	}

	stdout, _, code = runBinary(t, dir, "--no-default-roots", "--config", cfg, "tools", "list", "--json")
	var got struct {
		Tools    []any          `json:"tools"`
		Problems []view.Problem `json:"problems"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("tools list --json: %v\n%s", err, stdout)
	}
	if code != exitPartial || len(got.Problems) != 1 || got.Problems[0].Capability != "bad" ||
		!strings.Contains(got.Problems[0].Err, "exited with code 3") {
		t.Errorf("tools list --json: exit %d, problems %+v", code, got.Problems)
	}

	_, stderr, code = runBinary(t, dir, "--no-default-roots", "--config", cfg, "--verbose", "tools", "list")
	if code != exitPartial || !strings.Contains(stderr, "level=WARN") || !strings.Contains(stderr, `connpool: server \"bad\"`) {
		t.Errorf("--verbose: exit %d, stderr lacks the libraries' logs:\n%s", code, stderr)
	}
}

// TestListExitCodes: every list command exits 2 when a source failed, 0 when none did.
func TestListExitCodes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := failingServerConfig(t, dir)
	empty := writeExec(t, dir, "empty.yaml", "{}\n", 0o644)
	for _, args := range [][]string{
		{"tools", "list"}, {"commands", "list"}, {"resources", "list"}, {"skills", "list"}, {"compile"},
		{"compile", "--json"}, {"skills", "list", "--json"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			_, stderr, code := runBinary(t, dir, append([]string{"--no-default-roots", "--config", cfg}, args...)...)
			if code != exitPartial {
				t.Errorf("%v with a failing server: exit %d, want %d; stderr %s", args, code, exitPartial, stderr)
			}
			if _, _, code := runBinary(t, dir, append([]string{"--no-default-roots", "--config", empty}, args...)...); code != 0 {
				t.Errorf("%v: exit %d, want 0", args, code)
			}
		})
	}
}

// TestSummary: the one-line form of the failures connpool reports.
func TestSummary(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ err, want string }{
		{`degraded: mcp server "hung": connect: connpool: server "hung": server failed to start: start timed out after 1s: context deadline exceeded (pid 17459 killed by signal terminated)`,
			`s: server failed to start: start timed out after 1s (killed by signal terminated): give it longer with its startup_timeout`},
		{`degraded: mcp server "nope": connect: connpool: server "nope": server failed to start (permanent failure): spawn "/x/nope": fork/exec /x/nope: no such file or directory`,
			`s: server failed to start (permanent failure): spawn "/x/nope": fork/exec /x/nope: no such file or directory`},
		{`degraded: mcp server "web": connect: connpool: server "web": server failed to start: calling "initialize": sending "initialize": rejected by transport: Post "http://127.0.0.1:1/mcp": dial tcp 127.0.0.1:1: connect: connection refused`,
			`s: server failed to start: …: dial tcp 127.0.0.1:1: connect: connection refused`},
		{"degraded: x: server failed to start: connection closed: client is closing: EOF (pid 1 exited with code 1); stderr: Traceback:\n  File \"x.py\"\nModuleNotFoundError: No module named 'mcp'\n",
			`s: server failed to start (exited with code 1): ModuleNotFoundError: No module named 'mcp'`},
		{"degraded: x: server failed to start: EOF (pid 1 exited with code 1); stderr: Error: Cannot find module 'x'\n    at Module._resolve\n\nNode.js v20.1.0\n",
			`s: server failed to start (exited with code 1): Error: Cannot find module 'x'`},
	} {
		if got := summary(view.Problem{Capability: "s", What: "capability", Err: tc.err}); got != tc.want {
			t.Errorf("summary(%q)\n got %q\nwant %q", tc.err, got, tc.want)
		}
	}
	long := summary(view.Problem{Capability: "s", What: "tools", Err: strings.Repeat("x", 1000)})
	if n := len([]rune(long)); n > maxProblemLine {
		t.Errorf("summary is %d runes, want at most %d", n, maxProblemLine)
	}
}

// TestSignalExitCodes: SIGINT ends the CLI with 130 and SIGTERM with 143, as a shell reports a
// process a signal ended, after the host was closed.
func TestSignalExitCodes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sig  syscall.Signal
		want int
	}{{syscall.SIGINT, exitInterrupt}, {syscall.SIGTERM, exitTerminated}} {
		dir := t.TempDir()
		cmd := exec.Command("agentpool", "--no-default-roots", "--skills-dir", dir, "watch")
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
		stderr := &syncBuffer{}
		cmd.Stderr = stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		testwait.For(t, "watch to start", func() bool { return strings.Contains(stderr.String(), "watching") })
		if err := cmd.Process.Signal(tc.sig); err != nil {
			t.Fatal(err)
		}
		waitExit(t, cmd, fmt.Sprintf("%v: watch", tc.sig))
		if code := cmd.ProcessState.ExitCode(); code != tc.want {
			t.Errorf("%v: exit code %d, want %d; stderr %s", tc.sig, code, tc.want, stderr)
		}
	}
}

// TestTableCellsEscaped: a folder name with a newline stays on one table row.
func TestTableCellsEscaped(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "new\nline", "SKILL.md"), "---\nname: nl\ndescription: Two\n  lines.\n---\nbody\n")
	stdout, _, err := runCLI(t, "--no-default-roots", "--skills-dir", root, "skills", "list")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(stdout, "\n"), "\n")
	if len(lines) != 2 || !strings.Contains(lines[1], `new\nline`) {
		t.Errorf("skills list printed %d lines, want header and one row with new\\nline:\n%s", len(lines), stdout)
	}
}

// TestSignalTwiceAtOnce: one interrupt delivered twice at once (timeout(1) and a process group's
// kill signal the process and its group) is one signal: the servers are stopped and the CLI
// exits 130, rather than dying at once and leaving a starting server running.
func TestSignalTwiceAtOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	script := filepath.Join(dir, "server.sh")
	writeFile(t, script, "echo $$ > "+pidFile+"\nexec sleep 60\n")
	writeFile(t, filepath.Join(dir, "config.yaml"), "mcp_servers:\n  slow:\n    command: sh\n    args: [\""+script+"\"]\n")
	cmd := exec.Command("agentpool", "--no-default-roots", "--config", filepath.Join(dir, "config.yaml"), "tools", "list")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	testwait.For(t, "the server to start", func() bool {
		b, err := os.ReadFile(pidFile)
		if err != nil {
			return false
		}
		_, err = fmt.Sscan(string(b), &pid)
		return err == nil
	})
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	_ = cmd.Process.Signal(syscall.SIGINT)
	_ = cmd.Process.Signal(syscall.SIGINT)
	waitExit(t, cmd, "tools list")
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupt {
		t.Errorf("exit code %d (%v), want %d; stderr %s", code, cmd.ProcessState, exitInterrupt, stderr)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("server process %d still running after the CLI exited (kill 0: %v)", pid, err)
	}
}

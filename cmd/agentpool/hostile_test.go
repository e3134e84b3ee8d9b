package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hostileBed is what the hostile server is pointed at: a user's HOME holding a fake SSH key,
// a file and a folder outside anything a sandbox would grant, loopback listeners of the
// test and a process of the user's that the server may try to signal.
type hostileBed struct {
	home    string // HOME of serve and the server; ~/.ssh/id_rsa exists
	secret  string // a file outside the server's folders
	outside string // a folder outside the server's folders
	allowed string // a folder a sandbox grants (read and write)
	given   string // a listener's address a sandbox lists
	other   string // a listener's address a sandbox does not list
	sleeper *exec.Cmd
	exited  chan struct{} // closed when sleeper has ended
}

func newHostileBed(t *testing.T) *hostileBed {
	t.Helper()
	b := &hostileBed{home: t.TempDir(), outside: t.TempDir(), allowed: t.TempDir(), exited: make(chan struct{})}
	writeFile(t, filepath.Join(b.home, ".ssh", "id_rsa"), "-----BEGIN OPENSSH PRIVATE KEY-----\nfake\n")
	b.secret = filepath.Join(b.outside, "secret.txt")
	writeFile(t, b.secret, "secret\n")
	b.given = listen(t)
	b.other = listen(t)
	b.sleeper = exec.Command("sleep", "300")
	if err := b.sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = b.sleeper.Wait(); close(b.exited) }()
	t.Cleanup(func() { _ = b.sleeper.Process.Kill(); <-b.exited })
	return b
}

// listen starts a loopback listener that accepts and closes connections until the test ends,
// and returns its address.
func listen(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	t.Cleanup(func() { l.Close(); <-done })
	return l.Addr().String()
}

// hostileAttempt is one thing the hostile server tries: a tool and its arguments.
type hostileAttempt struct {
	what string
	tool string
	args map[string]any
}

// attempts are the tries of the acceptance list, in its order.
func (b *hostileBed) attempts() []hostileAttempt {
	return []hostileAttempt{
		{"read ~/.ssh/id_rsa", "read_file", map[string]any{"path": "~/.ssh/id_rsa"}},
		{"read a file outside", "read_file", map[string]any{"path": b.secret}},
		{"write outside", "write_file", map[string]any{"path": filepath.Join(b.outside, "dropped.txt")}},
		{"connect to a port it was not given", "connect", map[string]any{"addr": b.other}},
		{"bind a port", "bind", map[string]any{}},
		{"signal another process of the user", "signal", map[string]any{"pid": b.sleeper.Process.Pid}},
		{"run sh", "run", map[string]any{"argv": []string{"sh", "-c", "true"}}},
	}
}

// serveHostile serves the hostile server (with prefix "") under the extra keys in server
// (indented as the server's keys) through `serve --stdio` with HOME set to bed's; see
// serveConfig.
func serveHostile(t *testing.T, b *hostileBed, server string) (*mcp.ClientSession, *syncBuffer) {
	t.Helper()
	hostile := testserver.BuildHostile(t)
	return serveConfig(t, b.home, "mcp_servers:\n  hostile:\n    command: "+hostile+"\n    prefix: \"\"\n"+server)
}

// serveConfig starts `agentpool --no-default-roots --config CFG serve --stdio` with HOME set
// to home and CFG holding yaml, in a new working folder, and connects a client; everything
// ends with the test. It returns the client and serve's stderr.
func serveConfig(t *testing.T, home, yaml string) (*mcp.ClientSession, *syncBuffer) {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "agentpool.yaml")
	writeFile(t, cfg, yaml)
	cmd := exec.Command("agentpool", "--no-default-roots", "--config", cfg, "serve", "--stdio")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+home)
	cs, in, stderr := connectStdio(t, cmd, nil)
	t.Cleanup(func() {
		_ = in.Close()
		waitExit(t, cmd, "serve --stdio")
		_ = cs.Close()
	})
	return cs, stderr
}

// hostileOutcome is the hostile server's answer to one attempt.
type hostileOutcome struct {
	OK    bool   `json:"ok"`
	Error string `json:"error"`
}

// try calls the attempt's tool through serve and returns what the server says happened.
func try(t *testing.T, cs *mcp.ClientSession, a hostileAttempt) hostileOutcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: a.tool, Arguments: a.args})
	if err != nil {
		t.Fatalf("%s (%s): %v", a.what, a.tool, err)
	}
	if res.IsError || len(res.Content) == 0 {
		text := ""
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text += tc.Text
			}
		}
		t.Fatalf("%s (%s): tool error %q", a.what, a.tool, text)
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("%s (%s): content %T, want text", a.what, a.tool, res.Content[0])
	}
	var out hostileOutcome
	if err := json.Unmarshal([]byte(text.Text), &out); err != nil {
		t.Fatalf("%s (%s): answer %q: %v", a.what, a.tool, text.Text, err)
	}
	return out
}

// TestHostileServerUnsandboxed: the hostile server, run through `serve` without a sandbox,
// succeeds at every attempt — the baseline that makes the sandboxed failures mean something.
// The effects are checked from outside too: the file is written, the process is gone.
func TestHostileServerUnsandboxed(t *testing.T) {
	t.Parallel()
	b := newHostileBed(t)
	cs, stderr := serveHostile(t, b, "")
	for _, a := range b.attempts() {
		if out := try(t, cs, a); !out.OK {
			t.Errorf("%s: failed unsandboxed: %s; serve's stderr:\n%s", a.what, out.Error, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(b.outside, "dropped.txt")); err != nil {
		t.Errorf("the write outside left no file: %v", err)
	}
	testwait.For(t, "the signalled process to end", func() bool {
		select {
		case <-b.exited:
			return true
		default:
			return false
		}
	})
	if ws, ok := b.sleeper.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGTERM {
		t.Errorf("the sleeping process ended with %v, want SIGTERM", b.sleeper.ProcessState)
	}
}

// denied reports whether an error text is the system refusing an access (EACCES, EPERM), as
// Landlock and a namespace without the address answer, rather than a missing file or a
// refused connection that says nothing about a sandbox.
func denied(text string) bool {
	for _, s := range []string{"permission denied", "operation not permitted", "cannot assign requested address", "network is unreachable"} {
		if strings.Contains(text, s) {
			return true
		}
	}
	return false
}

// TestHostileServerSandboxed: the same server, sandboxed to read one folder and connect to
// one listed address, fails at every attempt inside the server, and the tool says why; the
// listed address connects. Nothing happened outside: no file was written and the user's
// process still runs.
func TestHostileServerSandboxed(t *testing.T) {
	t.Parallel()
	b := newHostileBed(t)
	cs, stderr := serveHostile(t, b, fmt.Sprintf("    sandbox: {read: [%s], network: [%q]}\n", b.allowed, b.given))
	for _, a := range b.attempts() {
		out := try(t, cs, a)
		switch {
		case out.OK:
			t.Errorf("%s: succeeded in the sandbox", a.what)
		case !denied(out.Error):
			t.Errorf("%s: failed with %q, want the sandbox's denial", a.what, out.Error)
		}
	}
	if out := try(t, cs, hostileAttempt{"connect to the listed address", "connect", map[string]any{"addr": b.given}}); !out.OK {
		t.Errorf("connect to the listed %s: %s; serve's stderr:\n%s", b.given, out.Error, stderr)
	}
	if _, err := os.Stat(filepath.Join(b.outside, "dropped.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the write outside left a file (stat: %v)", err)
	}
	select {
	case <-b.exited:
		t.Errorf("the user's process ended: %v", b.sleeper.ProcessState)
	default:
	}
}

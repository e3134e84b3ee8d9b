package main

import (
	"bufio"
	"context"
	"fmt"
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

// reloadWait bounds how long a test waits for serve to notice an edit (debounce plus a
// reload on a loaded machine); it bounds a wait, never asserts a speed.
const reloadWait = 60 * time.Second

// startReloadServe runs `agentpool --config path serve --http 127.0.0.1:0` and returns its
// endpoint and everything it writes to stderr from then on.
func startReloadServe(t *testing.T, path string) (*exec.Cmd, string, *syncBuffer) {
	t.Helper()
	return startServeIn(t, "", []string{"HOME=" + t.TempDir()}, "--config", path, "serve", "--http", "127.0.0.1:0")
}

// startServeIn runs agentpool with args (a serve command) in the folder dir ("" for the
// test's), env added to the test's environment, and returns its endpoint and everything it
// writes to stderr from then on.
func startServeIn(t *testing.T, dir string, env []string, args ...string) (*exec.Cmd, string, *syncBuffer) {
	t.Helper()
	cmd := exec.Command("agentpool", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			waitExit(t, cmd, "serve after SIGTERM")
		}
	})
	sc := bufio.NewScanner(stderr)
	endpoint := regexp.MustCompile(`http://127\.0\.0\.1:[1-9][0-9]*/mcp`)
	var url string
	for url == "" && sc.Scan() {
		url = endpoint.FindString(sc.Text())
	}
	if url == "" {
		t.Fatal("serve printed no endpoint URL")
	}
	log := &syncBuffer{}
	go func() {
		for sc.Scan() {
			log.Write([]byte(sc.Text() + "\n"))
		}
	}()
	return cmd, url, log
}

// replaceFile writes text to path as editors do: a new file renamed over the old one.
func replaceFile(t *testing.T, path, text string) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// pidOf calls tool (a faultserver's pid tool) and returns the pid it answers.
func pidOf(t *testing.T, cs *mcp.ClientSession, tool string) int {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
	if err != nil {
		t.Fatalf("call %s: %v", tool, err)
	}
	if res.IsError || len(res.Content) == 0 {
		t.Fatalf("call %s: error result %+v", tool, res.Content)
	}
	pid, err := strconv.Atoi(res.Content[0].(*mcp.TextContent).Text)
	if err != nil {
		t.Fatalf("call %s: %v", tool, err)
	}
	return pid
}

// waitReload polls cond until it holds or reloadWait passed.
func waitReload(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testwait.Within(t, reloadWait, what, cond)
}

// waitNewPid calls tool until it answers a pid other than old (a reload has replaced its
// server; during the swap a call may find the old capability closed) and returns it.
func waitNewPid(t *testing.T, cs *mcp.ClientSession, tool string, old int) int {
	t.Helper()
	var pid int
	waitReload(t, tool+" answered by a new process", func() bool {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
		if err != nil || res.IsError || len(res.Content) == 0 {
			return false
		}
		tc, ok := res.Content[0].(*mcp.TextContent)
		if !ok {
			return false
		}
		pid, err = strconv.Atoi(tc.Text)
		return err == nil && pid != old
	})
	return pid
}

// waitGone waits until no process has pid (kill(pid, 0) answers ESRCH: it ended and was
// reaped).
func waitGone(t *testing.T, pid int, what string) {
	t.Helper()
	waitReload(t, fmt.Sprintf("%s: process %d gone", what, pid), func() bool { return !testwait.Alive(pid) })
}

// TestServeReloadsConfig runs the real binary with two stdio servers and a connected client,
// then edits the config file: adding a third server and changing the second's args restarts
// exactly the second (its pid changes and its old process ends at once, the first's does
// not), and the client gets notifications/tools/list_changed and sees the new server's tools.
// Malformed files written over it are refused, each error logged: every pid stays, the
// session still calls. Removing the third ends its process. SIGHUP reloads too.
func TestServeReloadsConfig(t *testing.T) {
	t.Parallel()
	bin := testserver.Build(t)
	path := filepath.Join(t.TempDir(), "agentpool.yaml")
	// Each server's declaration differs from the others' in what the pool fingerprints (its
	// args), so that each has a process of its own: the pool shares one between identical
	// commands.
	two := "mcp_servers:\n  one: {command: " + bin + ", args: [--stderr, one]}\n  two: {command: " + bin + "}\n"
	writeFile(t, path, two)
	serve, url, log := startReloadServe(t, path)

	cs, changed := connectWatchingTools(t, url)
	one, two1 := pidOf(t, cs, "one__pid"), pidOf(t, cs, "two__pid")

	// A valid edit: three added, two changed (an argument), one untouched.
	replaceFile(t, path, "mcp_servers:\n  one: {command: "+bin+", args: [--stderr, one]}\n"+
		"  two: {command: "+bin+", args: [--stderr, changed]}\n  three: {command: "+bin+", args: [--stderr, three]}\n")
	select {
	case <-changed:
	case <-time.After(reloadWait):
		t.Fatalf("no tools/list_changed within %s; serve said:\n%s", reloadWait, log.String())
	}
	// The reload reaches the session as one change: the list its first list_changed asks
	// for already has all of it (not two's removal alone, then the rest).
	if tools, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	} else if !slices.ContainsFunc(tools.Tools, func(x *mcp.Tool) bool { return x.Name == "three__pid" }) ||
		!slices.ContainsFunc(tools.Tools, func(x *mcp.Tool) bool { return x.Name == "two__pid" }) {
		t.Errorf("after the first tools/list_changed the list lacks three__pid or two__pid: the reload was told in parts")
	}
	if got := pidOf(t, cs, "one__pid"); got != one {
		t.Errorf("unchanged server one restarted: pid %d, was %d", got, one)
	}
	two2 := waitNewPid(t, cs, "two__pid", two1)
	three := pidOf(t, cs, "three__pid")
	// The changed server's old process ends now, not after pool.idle_timeout (5 minutes).
	waitGone(t, two1, "two's old process after its change")

	// Malformed files: refused whole, every process and the session untouched.
	valid, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, text, want string }{
		{"bad yaml", "mcp_servers:\n  one: {command: [\n", "agentpool.yaml:"},
		{"unknown key", string(valid) + "  four: {command: " + bin + ", colour: red}\n", "colour"},
		{"neither command nor url", string(valid) + "  four: {args: [x]}\n", "mcp_servers.four"},
		{"bad duration", string(valid) + "  four: {command: " + bin + ", timeout: 30}\n", "mcp_servers.four.timeout"},
	} {
		before := strings.Count(log.String(), "config reload refused")
		replaceFile(t, path, c.text)
		waitReload(t, c.name+": an error logged", func() bool { return strings.Count(log.String(), "config reload refused") > before })
		if !strings.Contains(log.String(), c.want) {
			t.Errorf("%s: log does not name %q:\n%s", c.name, c.want, log.String())
		}
		for tool, pid := range map[string]int{"one__pid": one, "two__pid": two2, "three__pid": three} {
			if got := pidOf(t, cs, tool); got != pid {
				t.Errorf("%s: %s pid %d, was %d", c.name, tool, got, pid)
			}
		}
	}

	// Back to two servers: three removed, two changed again.
	replaceFile(t, path, two)
	waitReload(t, "three__pid gone", func() bool {
		tools, err := cs.ListTools(context.Background(), nil)
		return err == nil && !slices.ContainsFunc(tools.Tools, func(x *mcp.Tool) bool { return x.Name == "three__pid" })
	})
	two3 := waitNewPid(t, cs, "two__pid", two2)
	waitGone(t, three, "removed server three")
	waitGone(t, two2, "two's process before it changed back")
	if err := syscall.Kill(one, 0); err != nil {
		t.Errorf("unchanged server one's process %d: %v", one, err)
	}
	// SIGHUP reads the file again (here a malformed one, so the attempt is logged at error
	// level with its trigger) and serve goes on serving.
	replaceFile(t, path, "mcp_servers: [\n")
	waitReload(t, "the file's refusal logged", func() bool { return strings.Contains(log.String(), "trigger=file") })
	if err := serve.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitReload(t, "a SIGHUP reload logged", func() bool { return strings.Contains(log.String(), "trigger=SIGHUP") })
	if got := pidOf(t, cs, "two__pid"); got != two3 {
		t.Errorf("after SIGHUP of a malformed file: two pid %d, was %d", got, two3)
	}
}

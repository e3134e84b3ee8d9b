package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// childrenOf lists the processes whose parent is pid, from /proc.
func childrenOf(t *testing.T, pid int) []int {
	t.Helper()
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 {
			continue
		}
		if ppid, _ := strconv.Atoi(f[1]); ppid == pid {
			child, _ := strconv.Atoi(strings.Fields(s)[0])
			out = append(out, child)
		}
	}
	slices.Sort(out)
	return out
}

// procGone reports whether pid has left /proc (a zombie still counts as there).
func procGone(pid int) bool {
	_, err := os.Stat("/proc/" + strconv.Itoa(pid))
	return os.IsNotExist(err)
}

// TestServeShutdownUnderLoad: SIGTERM to `agentpool serve --http` holding 50 HTTP sessions,
// each with its session-scoped server process (and connpool's watchdog of it), ends it within its bound
// (serveStopBound for the sessions, then the host's close) with exit code 0, and leaves
// none of its processes: every child it had is gone from /proc.
func TestServeShutdownUnderLoad(t *testing.T) {
	t.Parallel()
	const sessions = 50
	dir := t.TempDir()
	// Every session starts its session-scoped server when it opens (its first view lists
	// it; even a lazy server is started by its resources and prompts being listed), so this
	// is 50 server processes, more than the 20 asked for.
	fault := testserver.Build(t)
	writeFile(t, filepath.Join(dir, "agentpool.yaml"), "pool:\n  max_clients: 100\nmcp_servers:\n  fault: {command: "+fault+", scope: session}\n")
	url, cmd := startServeHTTP(t, dir, "--no-default-roots", "--config", filepath.Join(dir, "agentpool.yaml"))

	ctx := context.Background()
	css := make([]*mcp.ClientSession, sessions)
	pids := make([]int, sessions)
	var wg sync.WaitGroup
	for i := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := mcp.NewClient(&mcp.Implementation{Name: "load", Version: "1"}, nil)
			cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
			if err != nil {
				t.Errorf("session %d: %v", i, err)
				return
			}
			css[i] = cs
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fault__pid", Arguments: map[string]any{}})
			if err != nil || res.IsError {
				t.Errorf("session %d: pid: %v %+v", i, err, res)
				return
			}
			pids[i], _ = strconv.Atoi(res.Content[0].(*mcp.TextContent).Text)
		}()
	}
	wg.Wait()
	defer func() {
		for _, cs := range css {
			if cs != nil {
				_ = cs.Close()
			}
		}
	}()
	if t.Failed() {
		t.FailNow()
	}
	// Each server runs beside a watchdog of connpool's (sh), which kills its process group if
	// serve dies: both are serve's children, and both must be gone after.
	children := childrenOf(t, cmd.Process.Pid)
	var servers []int
	for _, pid := range children {
		if b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline"); strings.HasPrefix(string(b), fault+"\x00") {
			servers = append(servers, pid)
		}
	}
	slices.Sort(pids)
	if !slices.Equal(servers, pids) {
		t.Errorf("serve's server processes are %v, want the sessions' %v (children %v)", servers, pids, children)
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	// The bound: serveStopBound, then the host's close (15 s); the rest is slack for a
	// loaded machine. A liveness bound, not a timing claim.
	select {
	case <-done:
	case <-time.After(serveStopBound + 15*time.Second + 20*time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatal("serve did not end after SIGTERM")
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit code %d after SIGTERM, want 0", code)
	}
	var left []int
	defer func() {
		for _, pid := range left {
			b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
			t.Errorf("process %d outlived serve: %s", pid, b)
		}
	}()
	// Orphans are reaped by init: a liveness bound only.
	testwait.Within(t, 20*time.Second, "serve's servers to end", func() bool {
		left = left[:0]
		for _, pid := range children {
			if !procGone(pid) {
				left = append(left, pid)
			}
		}
		return len(left) == 0
	})
}

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestReloadChangedServerFailsNoCall: a real serve follows its config file while three
// sessions call a pool server every 20 ms (calls that last 30 ms, so some are always in
// flight); edits that change only the server's env replace its process each time, and no
// call fails: calls in flight finish on the old process, later ones go to the new.
func TestReloadChangedServerFailsNoCall(t *testing.T) {
	t.Parallel()
	bin := testserver.Build(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "agentpool.yaml")
	config := func(gen int) string {
		return fmt.Sprintf("mcp_servers:\n  vol1: {command: %s, env: {GEN: '%d'}}\n", bin, gen)
	}
	writeFile(t, path, config(0))
	cmd := exec.Command("agentpool", "--no-default-roots", "--config", path, "serve", "--http", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "HOME="+dir)
	url := startServeCmd(t, cmd)

	var sessions []*mcp.ClientSession
	for range 3 {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "caller", Version: "1"}, nil).
			Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		sessions = append(sessions, cs)
	}
	var (
		calls    atomic.Int64
		mu       sync.Mutex
		failures []string
		wg       sync.WaitGroup
	)
	failed := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		failures = append(failures, s)
	}
	stop := make(chan struct{})
	for i, cs := range sessions {
		wg.Go(func() {
			tick := time.NewTicker(20 * time.Millisecond)
			defer tick.Stop()
			// At most 16 calls of a session in flight: on a loaded machine, where a call
			// takes longer than 64 ticks, calls wait for a slot rather than pass
			// server.max_inflight, whose refusal is not what this test is about.
			slots := make(chan struct{}, 16)
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
				}
				select {
				case <-stop:
					return
				case slots <- struct{}{}:
				}
				wg.Go(func() {
					defer func() { <-slots }()
					res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "vol1__sleep", Arguments: map[string]any{"ms": 30}})
					switch {
					case err != nil:
						failed(fmt.Sprintf("session %d: %v", i, err))
					case res.IsError:
						failed(fmt.Sprintf("session %d: tool error %v", i, res.Content))
					default:
						calls.Add(1)
					}
				})
			}
		})
	}

	pid := pidOf(t, sessions[0], "vol1__pid")
	for gen := 1; gen <= 3; gen++ {
		replaceFile(t, path, config(gen))
		pid = waitNewPid(t, sessions[gen%3], "vol1__pid", pid)
		// Let calls run on the new process before the next edit.
		from := calls.Load()
		waitReload(t, "calls after generation "+strconv.Itoa(gen), func() bool { return calls.Load() >= from+10 })
	}
	close(stop)
	wg.Wait()
	if len(failures) > 0 {
		t.Errorf("%d of %d calls failed across 3 reloads, first: %v", len(failures), int(calls.Load())+len(failures), failures[:min(len(failures), 5)])
	}
}

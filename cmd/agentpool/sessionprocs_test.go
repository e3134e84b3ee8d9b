package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentpool/agentpool/internal/testserver"
)

// postMCP posts body to url as a streamable client of 2025-03-26 (session sid when not empty)
// and returns the status, the session header and the body; safe on any goroutine.
func postMCP(url, sid, body string) (int, string, string, error) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return 0, "", "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", "", err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), string(data), err
}

const rawInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// serveSessionServer runs serve with one session-scoped stdio server, "fault", under
// pool.max_session_processes max, and returns its endpoint, its pid and the server's binary.
func serveSessionServer(t *testing.T, max int) (string, int, string) {
	t.Helper()
	bin := testserver.Build(t)
	cfg := filepath.Join(t.TempDir(), "agentpool.yaml")
	writeFile(t, cfg, fmt.Sprintf("pool: {max_session_processes: %d}\nmcp_servers:\n  fault: {command: %s, scope: session}\n", max, bin))
	cmd, url, _ := startServeIn(t, "", []string{"HOME=" + t.TempDir()}, "--no-default-roots", "--config", cfg, "serve", "--http", "127.0.0.1:0")
	return url, cmd.Process.Pid, bin
}

// serverProcesses counts the children of pid running bin, from /proc.
func serverProcesses(t *testing.T, pid int, bin string) int {
	n := 0
	for _, c := range childrenOf(t, pid) {
		if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", c)); err == nil && exe == bin {
			n++
		}
	}
	return n
}

// A session refused by pool.max_session_processes is answered like the other caps on
// sessions: HTTP 200 with a JSON-RPC error naming the key, and the admitted session goes on.
func TestServeSessionProcessesRefusal(t *testing.T) {
	t.Parallel()
	url, _, _ := serveSessionServer(t, 1)
	status, sid, body, err := postMCP(url, "", rawInit)
	if err != nil || status != http.StatusOK || sid == "" || strings.Contains(body, `"error"`) {
		t.Fatalf("the first session: %d %q %v", status, body, err)
	}
	status, _, body, err = postMCP(url, "", rawInit)
	if err != nil || status != http.StatusOK || !strings.Contains(body, `"error"`) || !strings.Contains(body, "pool.max_session_processes") {
		t.Errorf("a second session with max_session_processes 1: %d %q %v, want 200 and a JSON-RPC error naming pool.max_session_processes", status, body, err)
	}
	postMCP(url, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	status, _, body, err = postMCP(url, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fault__echo","arguments":{"text":"still here"}}}`)
	if err != nil || status != http.StatusOK || !strings.Contains(body, "still here") {
		t.Errorf("the first session's call: %d %q %v", status, body, err)
	}
}

// Sessions opening at the same instant against pool.max_session_processes: never more
// processes than the cap (the children of serve, from /proc), every session refused gets the
// error naming the key, and every session admitted has its server.
func TestServeSessionProcessesConcurrent(t *testing.T) {
	t.Parallel()
	const max, opens = 3, 16
	url, pid, bin := serveSessionServer(t, max)
	var peak atomic.Int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if n := int64(serverProcesses(t, pid, bin)); n > peak.Load() {
				peak.Store(n)
			}
			select {
			case <-stop:
				return
			default:
			}
		}
	}()
	type outcome struct {
		sid, body, list string
		status          int
		err             error
	}
	out := make([]outcome, opens)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range opens {
		wg.Go(func() {
			<-start
			o := &out[i]
			o.status, o.sid, o.body, o.err = postMCP(url, "", rawInit)
			if o.err != nil || o.sid == "" {
				return
			}
			postMCP(url, o.sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			_, _, o.list, o.err = postMCP(url, o.sid, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
		})
	}
	close(start)
	wg.Wait()
	close(stop)
	<-sampled
	admitted := 0
	for i, o := range out {
		switch {
		case o.err != nil:
			t.Errorf("session %d: %v", i, o.err)
		case o.sid != "":
			admitted++
			if !strings.Contains(o.list, "fault__echo") {
				t.Errorf("session %d admitted without its server: tools/list %q", i, o.list)
			}
		case o.status != http.StatusOK || !strings.Contains(o.body, "pool.max_session_processes"):
			t.Errorf("session %d refused with %d %q, want 200 and a JSON-RPC error naming pool.max_session_processes", i, o.status, o.body)
		}
	}
	if admitted == 0 || admitted > max {
		t.Errorf("%d of %d sessions admitted under max_session_processes %d", admitted, opens, max)
	}
	if p := peak.Load(); p > max {
		t.Errorf("%d server processes at once under max_session_processes %d", p, max)
	}
}

package mcpcap

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// httpServer is a faultserver --http subprocess owned by a test.
type httpServer struct {
	cmd  *exec.Cmd
	url  string
	once sync.Once
}

// startHTTPFaultserver runs faultserver --http addr with args and returns it once it printed
// its URL. It is killed (and reaped) at cleanup if the test did not kill it.
func startHTTPFaultserver(t *testing.T, addr string, args ...string) *httpServer {
	t.Helper()
	cmd := exec.Command(testserver.Build(t), append([]string{"--http", addr}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &httpServer{cmd: cmd}
	t.Cleanup(s.kill)
	line := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(out).ReadString('\n')
		line <- strings.TrimSpace(l)
	}()
	select {
	case s.url = <-line:
	case <-time.After(20 * time.Second):
		t.Fatalf("faultserver --http %s printed no URL", addr)
	}
	if !strings.HasPrefix(s.url, "http://127.0.0.1:") {
		t.Fatalf("faultserver --http %s printed %q", addr, s.url)
	}
	return s
}

// kill sends SIGKILL and reaps the process; it is idempotent.
func (s *httpServer) kill() {
	s.once.Do(func() {
		_ = s.cmd.Process.Signal(syscall.SIGKILL)
		_ = s.cmd.Wait()
	})
}

func (s *httpServer) hostPort(t *testing.T) string {
	t.Helper()
	u, err := url.Parse(s.url)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// TestHTTPKill9WithCallsInFlight kills a streamable HTTP server with -9 while 20 calls are in
// flight through a pooled Cap, twice. Every call returns within a bound, read-only lookups
// either succeed after a retry or fail with a clear connection error naming the server, and
// the non-idempotent count (in flight at the kill) is never executed twice. The first time the
// server stays down until every call returned, then a new one starts on the same address with
// another tool list: the next access reaches it and tools_changed fires. The second time the
// next server starts at once, while the lookups are being retried.
func TestHTTPKill9WithCallsInFlight(t *testing.T) { testHTTPKill9(t, false) }

// TestHTTPKill9WithRawCallsInFlight: the same with the calls passed through (CallToolRaw).
func TestHTTPKill9WithRawCallsInFlight(t *testing.T) { testHTTPKill9(t, true) }

func testHTTPKill9(t *testing.T, raw bool) {
	log := filepath.Join(t.TempDir(), "calls.log")
	slow := []string{"--log", log, "--call-delay", "5s", "--count-delay", "5s"}
	first := startHTTPFaultserver(t, "127.0.0.1:0", slow...)
	addr := first.hostPort(t)
	p := newPool(t)
	c := newPoolCap(t, p, "", Config{Name: "web",
		Server: connpool.ServerConfig{Server: decl.Server{Type: connpool.TypeStreamableHTTP, URL: first.url}},
		Retry:  decl.Retry{Attempts: 4, Backoff: 200 * time.Millisecond}})
	var rec recorder
	defer c.Observe(rec.add)()
	if got := callText(t, c, "echo", `{"text":"up"}`); got != "up" {
		t.Fatalf("echo = %q", got)
	}

	counts := killWithCallsInFlight(t, c, raw, log, first, 0, nil)

	// While the server is down a call fails promptly with an error naming the server and its
	// URL, and count cannot have run anywhere.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := c.CallTool(ctx, &ext.ToolCall{Name: "echo", Arguments: json.RawMessage(`{"text":"x"}`)}); err == nil || !strings.Contains(err.Error(), `"web"`) || !strings.Contains(err.Error(), addr) {
		t.Fatalf("call while the server is down: %v, want an error naming the server and %s", err, addr)
	}

	// A new server on the same address, with one more tool.
	toolsChanged := rec.count(ext.ToolsChanged)
	second := startHTTPFaultserver(t, addr, append([]string{"--extra-tool", "restarted"}, slow...)...)
	if second.url != first.url {
		t.Fatalf("second server at %s, first at %s", second.url, first.url)
	}
	testwait.For(t, "the Cap to reach the restarted server", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		res, err := c.CallTool(ctx, &ext.ToolCall{Name: "echo", Arguments: json.RawMessage(`{"text":"again"}`)})
		return err == nil && res.Content[0].Text == "again"
	})
	testwait.For(t, "tools_changed after the restart", func() bool { return rec.count(ext.ToolsChanged) > toolsChanged })
	if tools, err := c.Tools(ctx); err != nil || !slices.ContainsFunc(tools, func(e ext.ToolEntry) bool { return e.Name == "restarted" }) {
		t.Fatalf("tools after restart: %v, %v; want the new tool", tools, err)
	}
	if got := callText(t, c, "restarted", `{"text":"new"}`); got != "new" {
		t.Fatalf("new tool = %q", got)
	}
	if st := c.Status(); st.State != StateConnected || st.Reconnects < 1 {
		t.Fatalf("status after recovery: %+v", st)
	}

	// Second kill; the next server (without the extra tool) starts at once.
	toolsChanged = rec.count(ext.ToolsChanged)
	var third *httpServer
	counts = killWithCallsInFlight(t, c, raw, log, second, counts, func() { third = startHTTPFaultserver(t, addr, slow...) })
	testwait.For(t, "the Cap to reach the third server", func() bool {
		// The retries may have run before it listened and left the Cap degraded for a while.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		res, err := c.CallTool(ctx, &ext.ToolCall{Name: "echo", Arguments: json.RawMessage(`{"text":"third"}`)})
		return err == nil && res.Content[0].Text == "third"
	})
	if got := callText(t, c, "count", `{}`); got != "1" {
		t.Fatalf("count on the third server = %q, want 1 (a fresh process)", got)
	}
	if got := countLines(t, log, "count "); got != counts+1 {
		t.Fatalf("count executed %d times for %d calls", got, counts+1)
	}
	testwait.For(t, "tools_changed after the second restart", func() bool {
		c.Tools(context.Background())
		return rec.count(ext.ToolsChanged) > toolsChanged
	})
	third.kill()
}

// killWithCallsInFlight issues 15 lookups and 5 counts through c, waits until the server has
// started every count (so the counts are in flight), kills srv with -9, runs restart (if
// any) at once, and checks how the calls end. counts is how many count calls were made
// before; it returns the new total.
func killWithCallsInFlight(t *testing.T, c *Cap, raw bool, log string, srv *httpServer, counts int, restart func()) int {
	t.Helper()
	type outcome struct {
		tool string
		res  *ext.ToolResult
		err  error
	}
	const inFlight = 20
	results := make(chan outcome, inFlight)
	var wg sync.WaitGroup
	for i := 0; i < inFlight; i++ {
		tool, args := "lookup", fmt.Sprintf(`{"key":"k%d"}`, i)
		if i%4 == 1 {
			tool, args = "count", `{}`
			counts++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			res, err := callAs(ctx, c, raw, tool, args)
			results <- outcome{tool, res, err}
		}()
	}
	testwait.For(t, "the count calls to start on the server", func() bool { return countLines(t, log, "count ") >= counts })
	time.Sleep(100 * time.Millisecond) // let the lookups' requests reach the server too
	srv.kill()
	if restart != nil {
		restart()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(90 * time.Second):
		t.Fatal("calls hang after kill -9 of the HTTP server")
	}
	close(results)
	var lookupsOK, lookupsFailed int
	for o := range results {
		switch {
		case o.tool == "lookup" && o.err == nil:
			if len(o.res.Content) == 0 || !strings.HasPrefix(o.res.Content[0].Text, "value-of-k") {
				t.Errorf("lookup result %+v", o.res)
			}
			lookupsOK++
		case o.tool == "lookup":
			lookupsFailed++
			if !errors.Is(o.err, ErrConnectionLost) && !errors.Is(o.err, ErrDegraded) || !strings.Contains(o.err.Error(), `"web"`) {
				t.Errorf("lookup cut off by kill -9: not a clear connection error naming the server: %v", o.err)
			}
		case o.err == nil:
			t.Errorf("count in flight during kill -9 succeeded: it was repeated")
		case !errors.Is(o.err, ErrConnectionLost) || !strings.Contains(o.err.Error(), "not retried") || !strings.Contains(o.err.Error(), `"web"`):
			t.Errorf("count cut off by kill -9: not a clear connection-lost error: %v", o.err)
		}
	}
	t.Logf("after kill -9: %d lookups succeeded after a retry, %d failed", lookupsOK, lookupsFailed)
	if got := countLines(t, log, "count "); got != counts {
		t.Fatalf("count executed %d times for %d calls: a non-idempotent call was repeated", got, counts)
	}
	return counts
}

// TestHTTPServerGoneForGood: when a streamable HTTP server dies and never comes back, the Cap
// becomes degraded with an error naming the server and its URL, withholds its tools and emits
// tools_changed.
func TestHTTPServerGoneForGood(t *testing.T) {
	srv := startHTTPFaultserver(t, "127.0.0.1:0")
	p := newPool(t)
	c := newPoolCap(t, p, "", Config{Name: "gone",
		Server: connpool.ServerConfig{Server: decl.Server{Type: connpool.TypeStreamableHTTP, URL: srv.url}},
		Retry:  decl.Retry{Attempts: 2, Backoff: 50 * time.Millisecond}})
	var rec recorder
	defer c.Observe(rec.add)()
	callText(t, c, "echo", `{"text":"up"}`)
	srv.kill()

	var lastErr error
	testwait.For(t, "the degraded state", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, lastErr = c.Tools(ctx)
		return errors.Is(lastErr, ErrDegraded)
	})
	if !strings.Contains(lastErr.Error(), `"gone"`) || !strings.Contains(lastErr.Error(), srv.url) {
		t.Fatalf("degraded error %q does not name the server and %s", lastErr, srv.url)
	}
	if st := c.Status(); st.State != StateDegraded || !strings.Contains(st.LastError, srv.url) {
		t.Fatalf("status = %+v", st)
	}
	if tools, err := c.Tools(context.Background()); !errors.Is(err, ErrDegraded) || len(tools) != 0 {
		t.Fatalf("degraded Tools = %v, %v; want none and ErrDegraded", tools, err)
	}
	if rec.count(ext.ToolsChanged) != 2 { // the death (ask again), then the degrade
		t.Fatalf("tools_changed on death and degrade: %d, want 2", rec.count(ext.ToolsChanged))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.CallTool(ctx, &ext.ToolCall{Name: "echo", Arguments: json.RawMessage(`{"text":"x"}`)}); !errors.Is(err, ErrDegraded) || !strings.Contains(err.Error(), srv.url) {
		t.Fatalf("call while degraded: %v", err)
	}
}

// TestHTTPPoolNoticesDeadServer pins the connpool behaviour the Cap's HTTP recovery relies
// on: once a request to a dead streamable HTTP server has failed, the pool no longer hands
// out the dead session (the very next Get starts a new one, which fails to start with the
// URL in its error), the old lease's Done closes and its Err names the failed request; and
// the Cap classifies that failure as a lost connection, never as an answer from the server.
func TestHTTPPoolNoticesDeadServer(t *testing.T) {
	srv := startHTTPFaultserver(t, "127.0.0.1:0")
	p := newPool(t)
	cfg := connpool.ServerConfig{Server: decl.Server{Type: connpool.TypeStreamableHTTP, URL: srv.url}}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	lease, err := p.Get(ctx, cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release(lease)
	if _, err := lease.Session().CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "up"}}); err != nil {
		t.Fatal(err)
	}
	srv.kill()
	_, callErr := lease.Session().CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "down"}})
	if callErr == nil {
		t.Fatal("call to a killed server succeeded")
	}
	// Refused at dial: the request never left. A keep-alive connection the kernel reset
	// under the request (EOF) may have delivered it.
	lost, sent := connectionLost(callErr, &conn{done: lease.Done()})
	refused := strings.Contains(callErr.Error(), "connection refused")
	if !lost || sent == refused {
		t.Errorf("connectionLost(%v) = lost %v, sent %v; want lost, sent %v", callErr, lost, sent, !refused)
	}
	// No waiting: the failed request already took the client out of the pool.
	if again, err := p.Get(ctx, cfg, ""); !errors.Is(err, connpool.ErrStart) || !strings.Contains(err.Error(), srv.hostPort(t)) {
		if err == nil {
			p.Release(again)
		}
		t.Fatalf("Get after a failed request to a dead server: %v; want a new start failing with ErrStart naming %s", err, srv.url)
	}
	select {
	case <-lease.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("lease Done not closed after a request to the dead server failed")
	}
	if err := lease.Err(); !errors.Is(err, connpool.ErrServerExited) || !strings.Contains(err.Error(), "POST "+srv.url) {
		t.Fatalf("lease Err = %v; want ErrServerExited naming the failed request", err)
	}
}

package mcpcap

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
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

// newPool returns a pool closed at the end of the test (after the Caps registered later).
func newPool(t *testing.T) *connpool.Pool {
	t.Helper()
	p := connpool.New(&connpool.Options{KillGrace: 500 * time.Millisecond, IdleTimeout: -1})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := p.Close(ctx); err != nil {
			t.Errorf("pool close: %v", err)
		}
	})
	return p
}

func newPoolCap(t *testing.T, p *connpool.Pool, partition string, cfg Config) *Cap {
	t.Helper()
	c, err := New(cfg, WithPool(p, partition))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(context.Background()); err != nil {
			t.Error(err)
		}
	})
	return c
}

func callText(t *testing.T, c *Cap, tool, args string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := c.CallTool(ctx, &ext.ToolCall{Name: tool, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if res.IsError || len(res.Content) == 0 {
		t.Fatalf("%s: result %+v", tool, res)
	}
	return res.Content[0].Text
}

func countLines(t *testing.T, file, prefix string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	n := 0
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, prefix) {
			n++
		}
	}
	return n
}

// TestKill9WithCallsInFlight kills the server while 50 calls are in flight, ten times: every
// call returns (none hangs), read-only calls are retried on the new process, the
// non-idempotent count tool is never executed twice, and the next call runs on a new pid.
func TestKill9WithCallsInFlight(t *testing.T) {
	bin := testserver.Build(t)
	log := filepath.Join(t.TempDir(), "calls.log")
	p := newPool(t)
	c := newPoolCap(t, p, "", Config{Name: "fault",
		Server: connpool.ServerConfig{Server: decl.Server{Command: bin, Args: []string{"--log", log, "--call-delay", "300ms"}}},
		Retry:  decl.Retry{Attempts: 3, Backoff: 20 * time.Millisecond}})
	var rec recorder
	defer c.Observe(rec.add)()
	k := &killer{t: t, c: c, log: log, settle: 100 * time.Millisecond}
	for cycle := 0; cycle < 10; cycle++ {
		k.cycle(cycle)
	}
	if st := c.Status(); st.State != StateConnected || st.Reconnects < 10 || st.LastError != "" {
		t.Fatalf("status after 10 kills and a successful call: %+v", st)
	}
}

// killer runs kill -9 cycles against one Cap: 50 calls in flight (read-only lookups,
// non-idempotent counts, unannotated sleeps), then SIGKILL of the process the pool started.
type killer struct {
	t          *testing.T
	c          *Cap
	log        string
	settle     time.Duration // at least this long before the kill, so the other calls reach the server
	countCalls int
	sleeps     int  // sleep calls made so far, each logged "begin" by the server when it starts
	raw        bool // the calls are CallToolRaw's (passed through), not CallTool's
}

// call makes a call the killer's way.
func (k *killer) call(ctx context.Context, tool, args string) (*ext.ToolResult, error) {
	return callAs(ctx, k.c, k.raw, tool, args)
}

// callAs calls tool with CallTool, or with CallToolRaw when raw (the result decoded as a
// client of the passed-through result would).
func callAs(ctx context.Context, c *Cap, raw bool, tool, args string) (*ext.ToolResult, error) {
	call := &ext.ToolCall{Name: tool, Arguments: json.RawMessage(args)}
	if !raw {
		return c.CallTool(ctx, call)
	}
	data, err := c.CallToolRaw(ctx, call)
	if err != nil {
		return nil, err
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(data, &res); err != nil {
		return nil, fmt.Errorf("raw result %s: %w", data, err)
	}
	return toolResult(&res), nil
}

// cycle runs one kill cycle and returns the pid (= process group) it killed.
func (k *killer) cycle(cycle int) (victim int) {
	t, c := k.t, k.c
	t.Helper()
	callText(t, c, "echo", `{"text":"up"}`) // connected, so Status().PID is the live process
	victim = c.Status().PID
	if victim == 0 {
		t.Fatalf("cycle %d: no pid for a connected stdio server: %+v", cycle, c.Status())
	}
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for i := 0; i < 50; i++ {
		tool, args := "lookup", fmt.Sprintf(`{"key":"k%d"}`, i)
		switch i % 4 {
		case 1:
			tool, args = "count", `{}`
			k.countCalls++
		case 3:
			// Not annotated, so not safe to repeat; still running when the kill lands.
			tool, args = "sleep", `{"ms":3000}`
			k.sleeps++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			res, err := k.call(ctx, tool, args)
			switch {
			case tool == "lookup" && err != nil:
				errs <- fmt.Errorf("read-only lookup was not retried to success: %w", err)
			case tool == "lookup" && !strings.HasPrefix(res.Content[0].Text, "value-of-k"):
				errs <- fmt.Errorf("lookup result %+v", res)
			case tool == "sleep" && err == nil:
				errs <- fmt.Errorf("sleep in flight during kill -9 succeeded: it was repeated")
			case tool == "sleep":
				if !errors.Is(err, ErrConnectionLost) || !strings.Contains(err.Error(), "not read-only or idempotent") {
					errs <- fmt.Errorf("sleep error is not a clear connection-lost error: %w", err)
				}
			case tool == "count" && err != nil:
				if !errors.Is(err, ErrConnectionLost) || !strings.Contains(err.Error(), "not retried") || !strings.Contains(err.Error(), `"`+c.Name()+`"`) {
					errs <- fmt.Errorf("count error is not a clear connection-lost error: %w", err)
				}
			}
		}()
	}
	// The sleeps must be running on the server when the kill lands: one still queued in this
	// process would never have reached the server and is rightly sent again on the next
	// connection. A fixed delay is not enough on a loaded machine, so wait for the server's
	// "begin" lines as well.
	time.Sleep(k.settle) // lookups (300 ms, unlogged) must be under way on the server at the kill
	testwait.For(t, fmt.Sprintf("cycle %d: %d sleeps begun on the server", cycle, k.sleeps), func() bool {
		return countLines(t, k.log, "begin ") >= k.sleeps
	})
	if err := syscall.Kill(victim, syscall.SIGKILL); err != nil {
		t.Fatalf("kill %d: %v", victim, err)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(90 * time.Second):
		t.Fatalf("cycle %d: calls hang after kill -9", cycle)
	}
	close(errs)
	for err := range errs {
		t.Errorf("cycle %d: %v", cycle, err)
	}
	callText(t, c, "echo", `{"text":"again"}`)
	if now := c.Status().PID; now == victim || now == 0 {
		t.Fatalf("cycle %d: next call ran on pid %d, killed %d", cycle, now, victim)
	}
	if got := countLines(t, k.log, "count "); got > k.countCalls {
		t.Fatalf("cycle %d: count executed %d times for %d calls: a non-idempotent call was repeated", cycle, got, k.countCalls)
	}
	if got := countLines(t, k.log, "done "); got != 0 {
		t.Fatalf("cycle %d: %d sleeps completed: a call cut off by kill -9 was repeated", cycle, got)
	}
	return victim
}

// TestStartFailureDegradedAndRecovery covers a server that cannot start: a clear error with the
// stderr tail, not cached (each later access tries again), degraded after the attempts with
// tools gone and tools_changed fired, and restored when the server works again.
func TestStartFailureDegradedAndRecovery(t *testing.T) {
	bin := testserver.Build(t)
	dir := t.TempDir()
	flag, starts := filepath.Join(dir, "up"), filepath.Join(dir, "starts")
	script := filepath.Join(dir, "server.sh")
	body := fmt.Sprintf("#!/bin/sh\necho start >> %q\nif [ -f %q ]; then exec %q; fi\necho 'fixture: server is down (no flag file)' >&2\nexit 2\n", starts, flag, bin)
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	p := newPool(t)
	c := newPoolCap(t, p, "", Config{Name: "flaky", Server: connpool.ServerConfig{Server: decl.Server{Command: script}},
		Retry: decl.Retry{Attempts: 2, Backoff: 50 * time.Millisecond}})
	var rec recorder
	defer c.Observe(rec.add)()
	ctx := context.Background()

	_, err := c.Tools(ctx)
	if !errors.Is(err, ErrDegraded) || !strings.Contains(err.Error(), "server is down") || !strings.Contains(err.Error(), `"flaky"`) {
		t.Fatalf("start failure: err = %v; want ErrDegraded naming the server with the stderr tail", err)
	}
	if got := countLines(t, starts, "start"); got != 2 {
		t.Fatalf("%d start attempts, want Retry.Attempts = 2", got)
	}
	if tools, err := c.Tools(ctx); !errors.Is(err, ErrDegraded) || len(tools) != 0 {
		t.Fatalf("degraded Tools = %v, %v; want none and ErrDegraded", tools, err)
	}
	if st := c.Status(); st.State != StateDegraded || !strings.Contains(st.LastError, "server is down") {
		t.Fatalf("status = %+v", st)
	}
	if rec.count(ext.ToolsChanged) != 1 {
		t.Fatalf("tools_changed on degrade: %d", rec.count(ext.ToolsChanged))
	}
	if _, err := c.CallTool(ctx, &ext.ToolCall{Name: "echo", Arguments: json.RawMessage(`{"text":"x"}`)}); !errors.Is(err, ErrDegraded) || !strings.Contains(err.Error(), "server is down") {
		t.Fatalf("call while degraded: %v", err)
	}
	// Not cached: once the retry interval passed, an access tries again.
	testwait.For(t, "a new start attempt", func() bool {
		c.Tools(ctx)
		return countLines(t, starts, "start") >= 3
	})

	// The server comes back.
	if err := os.WriteFile(flag, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	testwait.For(t, "recovery", func() bool {
		tools, _ := c.Tools(ctx)
		return len(tools) > 0
	})
	if rec.count(ext.ToolsChanged) != 2 || c.Status().State != StateConnected {
		t.Fatalf("after recovery: %d tools_changed, status %+v", rec.count(ext.ToolsChanged), c.Status())
	}
	if got := callText(t, c, "echo", `{"text":"back"}`); got != "back" {
		t.Fatalf("echo = %q", got)
	}

	// It dies for good: the next access degrades again, tools are gone, tools_changed fires.
	os.Remove(flag)
	if err := syscall.Kill(c.Status().PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	testwait.For(t, "degraded after death", func() bool {
		tools, _ := c.Tools(ctx)
		return len(tools) == 0 && c.Status().State == StateDegraded
	})
	if rec.count(ext.ToolsChanged) != 4 { // the death (ask again), then the degrade
		t.Fatalf("tools_changed after death: %d, want 4", rec.count(ext.ToolsChanged))
	}
	os.WriteFile(flag, nil, 0o644)
	testwait.For(t, "second recovery", func() bool {
		tools, _ := c.Tools(ctx)
		return len(tools) > 0
	})
}

func TestScopeIsolation(t *testing.T) {
	bin := testserver.Build(t)
	p := newPool(t)
	cfg := Config{Name: "state", Scope: ScopeSession, Server: connpool.ServerConfig{Server: decl.Server{Command: bin}}}
	s1 := newPoolCap(t, p, "session-1", cfg)
	s2 := newPoolCap(t, p, "session-2", cfg)
	callText(t, s1, "state_set", `{"value":"one"}`)
	if got := callText(t, s2, "state_get", `{}`); got != "" {
		t.Fatalf("session-2 sees session-1's state %q", got)
	}
	if a, b := callText(t, s1, "pid", `{}`), callText(t, s2, "pid", `{}`); a == b {
		t.Fatalf("two sessions share process %s", a)
	}
	if got := callText(t, s1, "state_get", `{}`); got != "one" {
		t.Fatalf("session-1 state = %q", got)
	}

	pcfg := Config{Name: "shared", Server: connpool.ServerConfig{Server: decl.Server{Command: bin, Args: []string{"--stderr", "shared"}}}}
	g1 := newPoolCap(t, p, "", pcfg)
	g2 := newPoolCap(t, p, "", pcfg)
	callText(t, g1, "state_set", `{"value":"both"}`)
	if got := callText(t, g2, "state_get", `{}`); got != "both" {
		t.Fatalf("pool scope: state = %q, want shared", got)
	}
	if a, b := callText(t, g1, "pid", `{}`), callText(t, g2, "pid", `{}`); a != b {
		t.Fatalf("pool scope: pids %s and %s, want one process", a, b)
	}
	if st := p.Stats(); st.Clients != 3 {
		t.Fatalf("pool has %d clients, want 3 (two sessions + one shared)", st.Clients)
	}
}

func TestCancellation(t *testing.T) { testCancellation(t, false) }

// testCancellation is TestCancellation with the call made by callAs(raw).
func testCancellation(t *testing.T, raw bool) {
	bin := testserver.Build(t)
	log := filepath.Join(t.TempDir(), "calls.log")
	p := newPool(t)
	c := newPoolCap(t, p, "", Config{Name: "slow", Server: connpool.ServerConfig{Server: decl.Server{Command: bin, Args: []string{"--log", log}}}})
	pid := callText(t, c, "pid", `{}`)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := callAs(ctx, c, raw, "sleep", `{"ms":30000}`)
		errc <- err
	}()
	// Cancel only once the call runs on the server: cancelled earlier, it would never reach
	// the server, which then logs no cancellation.
	testwait.For(t, "the sleep to begin on the server", func() bool { return countLines(t, log, "begin "+pid) == 1 })
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled call: err = %v, want context.Canceled", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("cancelled call did not return")
	}
	testwait.For(t, "server logs the cancellation", func() bool { return countLines(t, log, "cancelled "+pid) == 1 })
	if got := callText(t, c, "pid", `{}`); got != pid {
		t.Fatalf("session not reused after cancel: pid %s, was %s", got, pid)
	}
}

// TestRetryPolicyAlwaysAndNever: with retry.calls "always" an unannotated call cut off by
// kill -9 is repeated on the new process; with "never" even a read-only one is not.
func TestRetryPolicyAlwaysAndNever(t *testing.T) {
	bin := testserver.Build(t)
	for _, tc := range []struct {
		calls, tool, args string
		wantOK            bool
	}{
		{CallsAlways, "sleep", `{"ms":1500}`, true},
		{CallsNever, "lookup", `{"key":"k"}`, false},
	} {
		t.Run(tc.calls, func(t *testing.T) {
			p := newPool(t)
			c := newPoolCap(t, p, "", Config{Name: "policy",
				Server: connpool.ServerConfig{Server: decl.Server{Command: bin, Args: []string{"--call-delay", "1500ms"}}},
				Retry:  decl.Retry{Attempts: 3, Backoff: 10 * time.Millisecond, Calls: tc.calls}})
			pid, _ := strconv.Atoi(callText(t, c, "pid", `{}`))
			errc := make(chan error, 1)
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				_, err := c.CallTool(ctx, &ext.ToolCall{Name: tc.tool, Arguments: json.RawMessage(tc.args)})
				errc <- err
			}()
			time.Sleep(300 * time.Millisecond) // the call under way in the server (1.5 s), which logs nothing
			syscall.Kill(pid, syscall.SIGKILL)
			err := <-errc
			if tc.wantOK && err != nil {
				t.Fatalf("retry.calls=%s: %v, want the call repeated", tc.calls, err)
			}
			if !tc.wantOK && (!errors.Is(err, ErrConnectionLost) || !strings.Contains(err.Error(), `"never"`)) {
				t.Fatalf("retry.calls=%s: err = %v, want not retried", tc.calls, err)
			}
		})
	}
}

// TestReconnectAfterHangupWithOneAttempt: a server whose connection ends under a call while
// its process lingers is replaced by the next access in a single attempt (Retry.Attempts 1),
// by both call paths: the reconnect must not be handed the dying server's client, whose
// every call fails, and degrade the Cap.
func TestReconnectAfterHangupWithOneAttempt(t *testing.T) {
	p := newPool(t)
	c := newPoolCap(t, p, "", Config{Name: "s", Server: connpool.ServerConfig{Server: decl.Server{Command: testserver.Build(t)}},
		Retry: decl.Retry{Attempts: 1, Backoff: 10 * time.Millisecond}})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for i := range 6 {
		raw := i%2 == 0
		if got := callText(t, c, "echo", `{"text":"up"}`); got != "up" {
			t.Fatalf("round %d: echo = %q", i, got)
		}
		if res, err := callAs(ctx, c, raw, "hangup", `{"ms":2000}`); err == nil && !res.IsError {
			t.Fatalf("round %d: hangup answered %+v, want a failure", i, res)
		}
		if _, err := callAs(ctx, c, raw, "echo", `{"text":"again"}`); err != nil {
			t.Fatalf("round %d (raw %v): the call after the hangup: %v", i, raw, err)
		}
	}
	if st := c.Status(); st.State == StateDegraded {
		t.Fatalf("status %+v, want connected", st)
	}
}

package connpool

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/internal/testwait"
)

func TestSharingSameKeyOneProcess(t *testing.T) {
	p := newTestPool(t, nil)
	cfg := faultCfg(t)
	a := mustGet(t, p, cfg, GlobalPartition)
	named := cfg
	named.Name = "other-name" // Name is not part of the key
	b := mustGet(t, p, named, GlobalPartition)
	if a.PID() != b.PID() || a.PID() == 0 {
		t.Fatalf("PIDs %d and %d, want one shared process", a.PID(), b.PID())
	}
	if got := mustCall(t, b, "pid", nil); got != strconv.Itoa(a.PID()) {
		t.Fatalf("pid tool says %s, lease says %d", got, a.PID())
	}
	s := p.Stats()
	if s.Clients != 1 || s.Leases != 2 || s.Processes != 1 {
		t.Fatalf("stats %+v, want 1 client, 2 leases, 1 process", s)
	}
	c := mustGet(t, p, cfg, "session-1")
	if c.PID() == a.PID() {
		t.Fatal("different partitions share a process")
	}
	if s := p.Stats(); s.Clients != 2 || s.Processes != 2 {
		t.Fatalf("stats %+v, want 2 clients, 2 processes", s)
	}
	p.Release(a)
	p.Release(a) // idempotent: must not drop b's lease
	if s := p.Stats(); s.Leases != 2 {
		t.Fatalf("after double release: leases %d, want 2", s.Leases)
	}
	mustCall(t, b, "echo", map[string]any{"text": "still here"})
	p.Release(b)
	p.Release(c)
}

func TestConcurrentGetsStartOneProcess(t *testing.T) {
	p := newTestPool(t, nil)
	cfg := faultCfg(t)
	const n = 16
	conns := make([]*Conn, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conns[i] = mustGet(t, p, cfg, GlobalPartition)
		}()
	}
	wg.Wait()
	for _, c := range conns {
		if c == nil {
			t.FailNow()
		}
		if c.PID() != conns[0].PID() {
			t.Fatalf("concurrent gets started several processes: %d vs %d", c.PID(), conns[0].PID())
		}
		p.Release(c)
	}
}

func TestStatefulIsolation(t *testing.T) {
	p := newTestPool(t, nil)
	cfg := faultCfg(t)
	s1 := mustGet(t, p, cfg, "session-1")
	s2 := mustGet(t, p, cfg, "session-2")
	mustCall(t, s1, "state_set", map[string]any{"value": "alice"})
	if got := mustCall(t, s2, "state_get", nil); got != "" {
		t.Fatalf("session-2 sees session-1's state %q", got)
	}
	mustCall(t, s2, "state_set", map[string]any{"value": "bob"})
	if got := mustCall(t, s1, "state_get", nil); got != "alice" {
		t.Fatalf("session-1 state %q, want alice", got)
	}
	g1 := mustGet(t, p, cfg, GlobalPartition)
	g2 := mustGet(t, p, cfg, GlobalPartition)
	mustCall(t, g1, "state_set", map[string]any{"value": "shared"})
	if got := mustCall(t, g2, "state_get", nil); got != "shared" {
		t.Fatalf("global partition not shared: %q", got)
	}
	for _, c := range []*Conn{s1, s2, g1, g2} {
		p.Release(c)
	}
}

// killDuringCalls starts 50 slow calls on a lease, kills pid with SIGKILL and
// checks that every call returns (with an error) and the group is gone.
func killDuringCalls(t *testing.T, p *Pool, cfg ServerConfig, logFile string) {
	c := mustGet(t, p, cfg, GlobalPartition)
	pgid := c.PID()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const n = 50
	errs := make(chan error, n)
	for range n {
		go func() {
			_, err := call(ctx, c, "sleep", map[string]any{"ms": 60000})
			errs <- err
		}()
	}
	testwait.For(t, "50 sleeps running in the server", func() bool {
		b, _ := os.ReadFile(logFile)
		return strings.Count(string(b), "begin ") == n
	})
	if err := syscall.Kill(pgid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for range n {
		select {
		case err := <-errs:
			if err == nil {
				t.Error("a 60 s sleep completed after kill -9")
			} else if ctx.Err() != nil {
				t.Fatalf("call hung until the test deadline: %v", err)
			}
		case <-ctx.Done():
			t.Fatal("calls hang after kill -9")
		}
	}
	waitDone(t, c)
	if err := c.Err(); !errors.Is(err, ErrServerExited) || !strings.Contains(err.Error(), "killed") {
		t.Errorf("Err() = %v, want ErrServerExited naming the kill", err)
	}
	waitGroupGone(t, pgid)
	p.Release(c)

	c2 := mustGet(t, p, cfg, GlobalPartition)
	defer p.Release(c2)
	if c2.PID() == pgid {
		t.Fatal("next Get reused the dead process")
	}
	mustCall(t, c2, "echo", map[string]any{"text": "alive"})
	if b, _ := os.ReadFile(logFile); strings.Contains(string(b), "done") {
		t.Errorf("log shows a completed sleep: %q", b)
	}
}

func TestKill9WhileCallsInFlight(t *testing.T) {
	p := newTestPool(t, nil)
	log := filepath.Join(t.TempDir(), "log")
	killDuringCalls(t, p, faultCfg(t, "--log", log), log)
}

func TestKill9ShWrapperKillsGrandchild(t *testing.T) {
	p := newTestPool(t, nil)
	log := filepath.Join(t.TempDir(), "log")
	// The trailing echo keeps sh from exec'ing the server: it stays a grandchild.
	cfg := ServerConfig{Name: "wrapped", Server: decl.Server{Command: "sh", Args: []string{"-c", faultBinary(t) + " --log " + log + "; echo x"}}}
	killDuringCalls(t, p, cfg, log)
}

func faultBinary(t *testing.T) string { return faultCfg(t).Command }

func TestStartFailuresAreNotCached(t *testing.T) {
	p := newTestPool(t, nil)
	dir := t.TempDir()
	fs := faultBinary(t)
	starts := filepath.Join(dir, "starts")
	wrapped := func(name string, args string, timeout time.Duration) ServerConfig {
		return ServerConfig{Name: name, Server: decl.Server{Command: "sh", StartupTimeout: timeout, Args: []string{"-c", "echo start >> " + starts + "; exec " + fs + " " + args}}}
	}
	countStarts := func() int {
		b, _ := os.ReadFile(starts)
		return strings.Count(string(b), "start")
	}
	cases := []struct {
		name     string
		cfg      ServerConfig
		want     []string
		counting bool
	}{
		{"bad command", ServerConfig{Name: "nosuch", Server: decl.Server{Command: filepath.Join(dir, "no-such-server")}}, []string{`"nosuch"`, "no-such-server"}, false},
		{"exit at start", wrapped("quitter", "--stderr before-exit --exit-at-start 2", 0), []string{`"quitter"`, "exited with code 2", "before-exit", "exiting at start"}, true},
		// The startup timeout must leave the server time to start and say "hanging" on a loaded
		// machine (sh, then the server: starts were measured at up to 1.6 s at load 30).
		{"hang initialize", wrapped("hanger", "--stderr hanging --hang-initialize", 3*time.Second), []string{`"hanger"`, "hanging", context.DeadlineExceeded.Error()}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := countStarts()
			for attempt := 1; attempt <= 2; attempt++ {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				c, err := p.Get(ctx, tc.cfg, GlobalPartition)
				cancel()
				if err == nil {
					p.Release(c)
					t.Fatal("Get succeeded")
				}
				if !isStartErr(err) {
					t.Errorf("error %v does not wrap ErrStart", err)
				}
				for _, w := range tc.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("attempt %d: error %q lacks %q", attempt, err, w)
					}
				}
				if s := p.Stats(); s.Clients+s.Starting != 0 {
					t.Fatalf("failed start cached: %+v", s)
				}
			}
			if tc.counting {
				if got := countStarts() - before; got != 2 {
					t.Fatalf("%d starts for 2 Gets; failure was cached", got)
				}
			}
			testwait.For(t, "no process left", func() bool { return p.Stats().Processes == 0 })
		})
	}
}

// TestMaxClientsExhaustedAtOnce: at MaxClients, with every client leased and none starting,
// a Get for a new server fails at once with ErrPoolExhausted naming the cap's key (it does not
// wait for a release that may never come); a lease on a live client still works, and after a
// release the next Get evicts the idle client. Reserve raises the cap for the servers a
// config declares.
func TestMaxClientsExhaustedAtOnce(t *testing.T) {
	p := newTestPool(t, &Options{MaxClients: 20})
	var conns []*Conn
	for i := range 20 {
		conns = append(conns, mustGet(t, p, faultCfg(t, "--stderr", "server-"+strconv.Itoa(i)), GlobalPartition))
	}
	extra := faultCfg(t, "--stderr", "server-21")
	_, err := p.Get(context.Background(), extra, GlobalPartition) // no deadline: it must not wait
	if !errors.Is(err, ErrPoolExhausted) || !strings.Contains(err.Error(), "pool.max_clients") {
		t.Fatalf("21st Get: %v, want ErrPoolExhausted naming pool.max_clients", err)
	}
	if w := p.Stats().Waiting; w != 0 {
		t.Fatalf("a Get that failed is counted as waiting: %d", w)
	}
	// A lease on an existing client still works at the limit.
	again := mustGet(t, p, conns[3].c.cfg, GlobalPartition)
	p.Release(again)

	old := conns[0].PID()
	p.Release(conns[0])
	c := mustGet(t, p, extra, GlobalPartition)
	if _, err := call(context.Background(), c, "echo", map[string]any{"text": "21"}); err != nil {
		t.Fatalf("21st client after a release: %v", err)
	}
	waitGroupGone(t, old) // the idle client was evicted

	// Room reserved for declared servers comes on top of the cap.
	p.Reserve(2, 0)
	for i := range 2 {
		conns = append(conns, mustGet(t, p, faultCfg(t, "--stderr", "declared-"+strconv.Itoa(i)), GlobalPartition))
	}
	_, err = p.Get(context.Background(), faultCfg(t, "--stderr", "one-more"), GlobalPartition)
	if !errors.Is(err, ErrPoolExhausted) || !strings.Contains(err.Error(), "plus 2 for the declared") {
		t.Fatalf("Get beyond the cap and the reserve: %v, want ErrPoolExhausted naming both", err)
	}
	p.Release(c)
	for _, c := range conns[1:] {
		p.Release(c)
	}
}

func TestCloseEndsEveryGroup(t *testing.T) {
	const grace = 500 * time.Millisecond
	p := New(&Options{Subreaper: true, KillGrace: grace})
	var pgids []int
	for i := range 20 {
		args := []string{"--stderr", "s" + strconv.Itoa(i)}
		if i%3 == 0 {
			args = append(args, "--ignore-sigterm", "--linger", "1h")
		}
		cfg := faultCfg(t, args...)
		if i%4 == 1 { // some behind a shell wrapper
			cfg = ServerConfig{Name: "sh", Server: decl.Server{Command: "sh", Args: []string{"-c", cfg.Command + " " + strings.Join(args, " ") + "; echo x"}}}
		}
		c := mustGet(t, p, cfg, GlobalPartition)
		pgids = append(pgids, c.PID())
		if i%2 == 0 {
			p.Release(c) // idle and leased clients alike
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), grace+10*time.Second)
	defer cancel()
	start := time.Now()
	if err := p.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	t.Logf("Close of 20 servers took %v (grace %v)", time.Since(start), grace)
	for _, g := range pgids {
		if left := groupProcs(t, g); len(left) > 0 {
			t.Errorf("group %d still has %v after Close", g, left)
		}
	}
	if err := p.Close(ctx); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := p.Get(ctx, faultCfg(t), GlobalPartition); !errors.Is(err, ErrClosed) {
		t.Fatalf("Get after Close: %v, want ErrClosed", err)
	}
}

func TestIdleExpiry(t *testing.T) {
	p := newTestPool(t, &Options{IdleTimeout: 200 * time.Millisecond})
	c := mustGet(t, p, faultCfg(t), GlobalPartition)
	pgid := c.PID()
	p.Release(c)
	testwait.For(t, "idle expiry", func() bool { s := p.Stats(); return s.Clients == 0 && s.Processes == 0 })
	waitDone(t, c)
	waitGroupGone(t, pgid)
	c2 := mustGet(t, p, faultCfg(t), GlobalPartition)
	defer p.Release(c2)
	if c2.PID() == pgid {
		t.Fatal("expired client reused")
	}
}

func TestObserveFansOutToEveryLease(t *testing.T) {
	p := newTestPool(t, nil)
	cfg := faultCfg(t)
	a := mustGet(t, p, cfg, GlobalPartition)
	b := mustGet(t, p, cfg, GlobalPartition)
	defer p.Release(b)
	chA := make(chan Notification, 16)
	chB := make(chan Notification, 16)
	a.Observe(func(n Notification) { chA <- n })
	stopB := b.Observe(func(n Notification) { chB <- n })
	mustCall(t, a, "add_tool", map[string]any{"name": "dyn1"})
	for name, ch := range map[string]chan Notification{"a": chA, "b": chB} {
		select {
		case n := <-ch:
			if n.Kind != ToolsListChanged {
				t.Errorf("lease %s got %v", name, n.Kind)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("lease %s got no tools/list_changed", name)
		}
	}
	stopB()
	stopB()
	p.Release(a) // stops a's observers too
	mustCall(t, b, "add_tool", map[string]any{"name": "dyn2"})
	// The list_changed for dyn2 arrives after the call returns; a ping after
	// it cannot overtake it on the same pipe, but the handler runs async, so
	// give it a moment and check that nothing arrives.
	mustCall(t, b, "echo", map[string]any{"text": "sync"})
	select {
	case n := <-chA:
		t.Fatalf("released lease still observes: %v", n)
	case n := <-chB:
		t.Fatalf("stopped observer still observes: %v", n)
	case <-time.After(300 * time.Millisecond):
	}
}

func TestStderrTailAndErr(t *testing.T) {
	p := newTestPool(t, nil)
	c := mustGet(t, p, faultCfg(t, "--stderr", "hello-stderr"), GlobalPartition)
	defer p.Release(c)
	mustCall(t, c, "stderr", map[string]any{"text": "second-line"})
	testwait.For(t, "stderr tail", func() bool { return strings.Contains(c.StderrTail(), "second-line") })
	if !strings.Contains(c.StderrTail(), "hello-stderr") {
		t.Fatalf("tail %q", c.StderrTail())
	}
	if c.Err() != nil {
		t.Fatalf("Err before end: %v", c.Err())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, _ = call(ctx, c, "crash", nil)
	waitDone(t, c)
	if err := c.Err(); !strings.Contains(err.Error(), "exited with code 3") || !strings.Contains(err.Error(), "second-line") {
		t.Fatalf("Err = %v", err)
	}
}

package connpool

import (
	"testing"

	"github.com/agentpool/agentpool/internal/testwait"
)

// Retire ends an idle client at once, not after IdleTimeout (5 minutes by default), and the
// next Get for the same key starts a new process.
func TestRetireIdle(t *testing.T) {
	p := newTestPool(t, nil)
	cfg := faultCfg(t)
	c := mustGet(t, p, cfg, GlobalPartition)
	pid := c.PID()
	p.Release(c)
	if !testwait.Alive(pid) {
		t.Fatalf("released client's process %d ended before Retire (IdleTimeout is 5m)", pid)
	}
	p.Retire(cfg, "") // "" is GlobalPartition
	testwait.For(t, "the retired client's process to end", func() bool { return !testwait.Alive(pid) })
	// The pool counts the process until its reaper has seen it end, just after the pid is gone.
	testwait.For(t, "the pool to hold no client and no process after Retire", func() bool {
		s := p.Stats()
		return s.Clients == 0 && s.Processes == 0
	})
	again := mustGet(t, p, cfg, GlobalPartition)
	defer p.Release(again)
	if again.PID() == pid {
		t.Fatal("Get after Retire reused the retired process")
	}
	mustCall(t, again, "echo", map[string]any{"text": "new"})
}

// A retired client that other leases hold stays, its calls working, until its last Release;
// meanwhile a Get for the same key (a server whose declaration changed only in what the pool
// does not fingerprint) and one for a new key (a changed command) each start a new process.
// Other keys — the same config in another partition, another config in the same partition,
// idle or leased — are not touched.
func TestRetireLeased(t *testing.T) {
	p := newTestPool(t, nil)
	cfg, changed, other := faultCfg(t), faultCfg(t, "--stderr", "changed"), faultCfg(t, "--stderr", "other")
	first := mustGet(t, p, cfg, "s#1")
	second := mustGet(t, p, cfg, "s#1") // shares first's client
	pid := first.PID()
	if second.PID() != pid {
		t.Fatalf("two Gets of one key got pids %d and %d", pid, second.PID())
	}
	elsewhere := mustGet(t, p, cfg, "s#2")
	defer p.Release(elsewhere)
	otherLeased := mustGet(t, p, other, "s#1")
	defer p.Release(otherLeased)
	idle := mustGet(t, p, faultCfg(t, "--stderr", "idle"), "s#1")
	idlePID := idle.PID()
	p.Release(idle)
	p.Release(first)

	p.Retire(cfg, "s#1")
	mustCall(t, second, "echo", map[string]any{"text": "still leased"})
	if !testwait.Alive(pid) {
		t.Fatalf("retired client's process %d ended while a lease holds it", pid)
	}
	same := mustGet(t, p, cfg, "s#1")
	defer p.Release(same)
	if same.PID() == pid {
		t.Fatal("Get after Retire joined the retired client")
	}
	next := mustGet(t, p, changed, "s#1")
	defer p.Release(next)
	mustCall(t, next, "echo", map[string]any{"text": "new config"})

	p.Release(second)
	testwait.For(t, "the retired client's process to end after its last Release", func() bool { return !testwait.Alive(pid) })
	for name, c := range map[string]*Conn{"same config, other partition": elsewhere, "other config, leased": otherLeased} {
		if !testwait.Alive(c.PID()) {
			t.Errorf("%s: process %d ended", name, c.PID())
		}
		mustCall(t, c, "echo", map[string]any{"text": name})
	}
	if !testwait.Alive(idlePID) {
		t.Errorf("other config, idle: process %d ended", idlePID)
	}
	again := mustGet(t, p, faultCfg(t, "--stderr", "idle"), "s#1")
	defer p.Release(again)
	if again.PID() != idlePID {
		t.Errorf("other config, idle: Get started pid %d, want the idle client's %d", again.PID(), idlePID)
	}
}

// Retire of a key the pool has no client for, twice, or after Close does nothing.
func TestRetireNothing(t *testing.T) {
	p := newTestPool(t, nil)
	cfg := faultCfg(t)
	c := mustGet(t, p, cfg, GlobalPartition)
	defer p.Release(c)
	p.Retire(faultCfg(t, "--stderr", "never started"), GlobalPartition)
	p.Retire(cfg, "s#9")
	mustCall(t, c, "echo", map[string]any{"text": "untouched"})
	p.Retire(cfg, GlobalPartition)
	p.Retire(cfg, GlobalPartition)
	mustCall(t, c, "echo", map[string]any{"text": "leased"})
	closed := New(nil)
	if err := closed.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	closed.Retire(cfg, GlobalPartition)
}

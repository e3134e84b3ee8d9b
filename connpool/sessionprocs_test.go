package connpool

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/internal/testwait"
)

// MaxSessionProcesses caps the stdio processes of session partitions across all sessions: past
// it a session's Get fails at once (no wait), naming pool.max_session_processes, while the
// shared servers still start; a session's processes ended free their places.
func TestMaxSessionProcesses(t *testing.T) {
	p := newTestPool(t, &Options{MaxSessionProcesses: 2})
	cfg := faultCfg(t)
	a, b := mustGet(t, p, cfg, "s#1"), mustGet(t, p, cfg, "s#2")
	defer p.Release(a)
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Timeout)
	defer cancel()
	_, err := p.Get(ctx, cfg, "s#3")
	if !errors.Is(err, ErrPoolExhausted) || errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "max_session_processes") {
		t.Fatalf("a third session's process with MaxSessionProcesses 2: %v, want ErrPoolExhausted at once naming max_session_processes", err)
	}
	global := mustGet(t, p, cfg, GlobalPartition)
	p.Release(global)
	p.Release(b)
	if err := p.ClosePartition(ctx, "s#2"); err != nil {
		t.Fatal(err)
	}
	c := mustGet(t, p, cfg, "s#3")
	p.Release(c)
}

// ReserveSessionProcesses holds places in one step with the count: a reservation past the cap
// fails at once naming the key (its LimitKey too), a session's Gets take its places while the
// cap is full, and ClosePartition gives back those not taken.
func TestReserveSessionProcesses(t *testing.T) {
	p := newTestPool(t, &Options{MaxSessionProcesses: 2})
	cfg, cfg2 := faultCfg(t), faultCfg(t, "2")
	if err := p.ReserveSessionProcesses("s#1", cfg, cfg2); err != nil {
		t.Fatal(err)
	}
	err := p.ReserveSessionProcesses("s#2", cfg)
	lk, ok := err.(interface{ LimitKey() string })
	if !errors.Is(err, ErrPoolExhausted) || !ok || lk.LimitKey() != "pool.max_session_processes" {
		t.Fatalf("a reservation past the cap: %v, want ErrPoolExhausted with the key", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Timeout)
	defer cancel()
	if _, err := p.Get(ctx, cfg, "s#2"); !errors.Is(err, ErrPoolExhausted) {
		t.Fatalf("a Get of another session with every place held: %v, want ErrPoolExhausted", err)
	}
	a := mustGet(t, p, cfg, "s#1")
	p.Release(a)
	if live, max := p.SessionProcesses(); live != 2 || max != 2 {
		t.Fatalf("SessionProcesses = %d, %d with one place taken and one held, want 2, 2", live, max)
	}
	if err := p.ClosePartition(ctx, "s#1"); err != nil {
		t.Fatal(err)
	}
	if err := p.ReserveSessionProcesses("s#2", cfg, cfg2); err != nil {
		t.Fatalf("a reservation once the partition closed: %v", err)
	}
}

// The places a session holds are its servers': another stdio server starting in its partition
// (a skill's) is held to the cap, and does not take them, so the server a place was reserved
// for still starts once the cap is full.
func TestReservedPlaceIsTheServers(t *testing.T) {
	p := newTestPool(t, &Options{MaxSessionProcesses: 2})
	own, other := faultCfg(t, "own"), faultCfg(t, "other")
	x := mustGet(t, p, other, "s#0")
	defer p.Release(x)
	if err := p.ReserveSessionProcesses("s#1", own); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Timeout)
	defer cancel()
	if c, err := p.Get(ctx, other, "s#1"); !errors.Is(err, ErrPoolExhausted) {
		if err == nil {
			p.Release(c)
		}
		t.Fatalf("a server the session holds no place for, with the cap full: %v, want ErrPoolExhausted", err)
	}
	c, err := p.Get(ctx, own, "s#1")
	if err != nil {
		t.Fatalf("the server the session's place was reserved for: %v", err)
	}
	p.Release(c)
}

// A session's place outlives its server's process: a server that crashed starts again in
// it, though other sessions filled the cap meanwhile, and they cannot take the place.
func TestReservedPlaceOutlivesACrash(t *testing.T) {
	p := newTestPool(t, &Options{MaxSessionProcesses: 2})
	own, other := faultCfg(t, "own"), faultCfg(t, "other")
	x := mustGet(t, p, other, "s#0")
	defer p.Release(x)
	if err := p.ReserveSessionProcesses("s#1", own); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Timeout)
	defer cancel()
	c := mustGet(t, p, own, "s#1")
	_, _ = call(ctx, c, "crash", nil)
	testwait.For(t, "the crashed server to leave the pool", func() bool { return p.Stats().Processes == 1 })
	p.Release(c)
	if err := p.ReserveSessionProcesses("s#2", other); !errors.Is(err, ErrPoolExhausted) {
		t.Fatalf("another session's reservation while s#1 holds its place: %v, want ErrPoolExhausted", err)
	}
	c, err := p.Get(ctx, own, "s#1")
	if err != nil {
		t.Fatalf("the crashed server's start in its session's place: %v", err)
	}
	p.Release(c)
}

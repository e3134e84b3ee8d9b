package connpool

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/testwait"
)

// getWithin tries a Get that must not wait: it fails at once (ErrPoolExhausted) when a cap
// is reached and nothing idle can make room.
func getWithin(p *Pool, cfg ServerConfig, partition string, d time.Duration) (*Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return p.Get(ctx, cfg, partition)
}

// TestMaxClientsPerPartition: MaxClients caps each partition's clients (the shared servers,
// and each session's own), so sessions do not compete for one cap; MaxTotalClients caps them
// all together. At either cap a Get evicts an idle client that makes room (one of its own
// partition for the partition's cap, any for the total) or fails with ErrPoolExhausted naming
// the cap it met.
func TestMaxClientsPerPartition(t *testing.T) {
	p := newTestPool(t, &Options{MaxClients: 1, MaxTotalClients: 3})
	cfg, other := faultCfg(t), faultCfg(t, "--stderr", "other")

	// One client in each of three partitions, although MaxClients is 1.
	var conns []*Conn
	for _, part := range []string{GlobalPartition, "s#1", "s#2"} {
		conns = append(conns, mustGet(t, p, cfg, part))
	}
	global, s1, s2 := conns[0], conns[1], conns[2]

	// A second client in one partition meets its cap.
	if _, err := getWithin(p, other, "s#1", 300*time.Millisecond); !errors.Is(err, ErrPoolExhausted) || !strings.Contains(err.Error(), `partition "s#1"`) {
		t.Fatalf("a second client in s#1 with MaxClients 1: %v, want ErrPoolExhausted naming the partition", err)
	}
	// A fourth partition meets the total.
	if _, err := getWithin(p, cfg, "s#3", 300*time.Millisecond); !errors.Is(err, ErrPoolExhausted) || !strings.Contains(err.Error(), "in all partitions") {
		t.Fatalf("a fourth client with MaxTotalClients 3: %v, want ErrPoolExhausted naming the total", err)
	}

	// An idle client of another partition makes room under the total...
	oldS2 := s2.PID()
	p.Release(s2)
	s3 := mustGet(t, p, cfg, "s#3")
	defer p.Release(s3)
	waitGroupGone(t, oldS2)

	// ...but not under a partition's cap: the global client idle, s#1 is still full.
	p.Release(global)
	if _, err := getWithin(p, other, "s#1", 300*time.Millisecond); !errors.Is(err, ErrPoolExhausted) {
		t.Fatalf("a second client in s#1 while another partition's client is idle: %v, want ErrPoolExhausted", err)
	}
	// An idle client of its own partition does.
	oldS1 := s1.PID()
	p.Release(s1)
	c := mustGet(t, p, other, "s#1")
	defer p.Release(c)
	waitGroupGone(t, oldS1)
}

// A Get waiting at a cap whose only client is still starting, unleased (the Get that started it
// gave up), is woken when that start ends and evicts the now idle client. The end of a start
// woke nobody, so the waiter waited for its ctx and failed with ErrPoolExhausted beside an idle
// client it could have evicted.
func TestWaiterWokenWhenUnleasedStartEnds(t *testing.T) {
	p := newTestPool(t, &Options{MaxClients: 1})
	slow := faultCfg(t)
	slow.Args = []string{"-c", `sleep 1; exec "$0"`, slow.Command}
	slow.Command = "/bin/sh"
	if _, err := getWithin(p, slow, GlobalPartition, 100*time.Millisecond); err == nil {
		t.Fatal("the slow start was not slow")
	}
	testwait.For(t, "the abandoned start to be unleased", func() bool {
		st := p.Stats()
		return st.Starting == 1 && st.Leases == 0
	})
	c, err := getWithin(p, faultCfg(t, "--stderr", "other"), GlobalPartition, 15*time.Second)
	if err != nil {
		t.Fatalf("Get at the cap, beside a client that ended its start idle: %v", err)
	}
	p.Release(c)
}

// A Get waiting at a cap for a client still starting, whose Get still holds it, is woken when
// that start ends and, with no idle client to evict, fails at once with ErrPoolExhausted: the
// wait is bounded by the start, not by a release that may never come.
func TestWaiterWokenWhenLeasedStartEnds(t *testing.T) {
	p := newTestPool(t, &Options{MaxClients: 1})
	gate := filepath.Join(t.TempDir(), "gate")
	slow := faultCfg(t)
	slow.Args = []string{"-c", `while [ ! -e "$1" ]; do sleep 0.05; done; exec "$0"`, slow.Command, gate}
	slow.Command = "/bin/sh"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := make(chan *Conn, 1)
	go func() {
		c, err := p.Get(ctx, slow, GlobalPartition)
		if err != nil {
			t.Errorf("the slow Get: %v", err)
		}
		started <- c
	}()
	testwait.For(t, "the slow client to be starting, leased", func() bool {
		st := p.Stats()
		return st.Starting == 1 && st.Leases == 1
	})
	failed := make(chan error, 1)
	go func() {
		c, err := p.Get(ctx, faultCfg(t, "--stderr", "other"), GlobalPartition)
		if err == nil {
			p.Release(c)
		}
		failed <- err
	}()
	testwait.For(t, "the second Get to wait for the start", func() bool { return p.Stats().Waiting == 1 })
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if c := <-started; c != nil {
		defer p.Release(c)
	}
	var err error
	testwait.For(t, "the waiting Get to return once the start ended", func() bool {
		select {
		case err = <-failed:
			return true
		default:
			return false
		}
	})
	if !errors.Is(err, ErrPoolExhausted) || errors.Is(err, context.Canceled) {
		t.Fatalf("Get at the cap after the only start ended leased: %v, want ErrPoolExhausted at once", err)
	}
}

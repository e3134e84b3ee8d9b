package connpool

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/internal/testwait"
)

// A caller that gives up while a start is in progress must not fail the
// other callers waiting on the same start, nor leak its lease.
func TestGiveUpDuringStartDoesNotFailOthers(t *testing.T) {
	p := newTestPool(t, nil)
	// sleep 1 before exec keeps the start in progress long enough.
	cfg := ServerConfig{Name: "slow", Server: decl.Server{Command: "sh", Args: []string{"-c", "sleep 1; exec " + faultBinary(t)}}}
	quick, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	var wg sync.WaitGroup
	var patient *Conn
	var patientErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		patient, patientErr = p.Get(ctx, cfg, GlobalPartition)
	}()
	if _, err := p.Get(quick, cfg, GlobalPartition); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("impatient Get: %v", err)
	}
	wg.Wait()
	if patientErr != nil {
		t.Fatalf("patient Get failed because another gave up: %v", patientErr)
	}
	mustCall(t, patient, "echo", map[string]any{"text": "ok"})
	if s := p.Stats(); s.Leases != 1 || s.Clients != 1 {
		t.Fatalf("stats %+v, want 1 lease on 1 client", s)
	}
	p.Release(patient)
}

// Close during a start that would never finish returns within its bound and
// fails the waiting Get.
func TestCloseDuringHungStart(t *testing.T) {
	p := New(&Options{Subreaper: true, KillGrace: 200 * time.Millisecond})
	cfg := faultCfg(t, "--hang-initialize", "--ignore-sigterm")
	got := make(chan error, 1)
	go func() {
		_, err := p.Get(context.Background(), cfg, GlobalPartition)
		got <- err
	}()
	testwait.For(t, "start in progress", func() bool { return p.Stats().Processes == 1 })
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := p.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := <-got; !errors.Is(err, ErrStart) {
		t.Fatalf("Get during Close: %v, want ErrStart", err)
	}
	if n := p.Stats().Processes; n != 0 {
		t.Fatalf("%d processes after Close", n)
	}
}

// Release and Observe after Close are harmless; Done is closed.
func TestUseAfterClose(t *testing.T) {
	p := New(&Options{Subreaper: true, KillGrace: 200 * time.Millisecond})
	c := mustGet(t, p, faultCfg(t), GlobalPartition)
	pgid := c.PID()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	waitDone(t, c)
	if _, err := call(ctx, c, "echo", map[string]any{"text": "x"}); err == nil {
		t.Fatal("call after Close succeeded")
	}
	c.Observe(func(Notification) {})()
	p.Release(c)
	p.Release(c)
	waitGroupGone(t, pgid)
}

// Env and Cwd reach the server process.
func TestEnvAndCwd(t *testing.T) {
	p := newTestPool(t, nil)
	dir := t.TempDir()
	cfg := ServerConfig{Name: "env", Server: decl.Server{Command: "sh", Cwd: dir, Env: map[string]string{"FAULT_LOG": "from-env"}, Args: []string{"-c", "exec " + faultBinary(t) + ` --log "$PWD/$FAULT_LOG"`}}}
	c := mustGet(t, p, cfg, GlobalPartition)
	defer p.Release(c)
	mustCall(t, c, "count", nil)
	testwait.For(t, "log in cwd named by env", func() bool {
		_, err := os.Stat(filepath.Join(dir, "from-env"))
		return err == nil
	})
}

// ClosePartition ends a partition's idle clients before it returns, its leased ones once
// released, and leaves other partitions alone; the next Get there starts a new process.
func TestClosePartition(t *testing.T) {
	p := newTestPool(t, nil)
	cfg := faultCfg(t)
	idle := mustGet(t, p, cfg, "s#1")
	mustCall(t, idle, "state_set", map[string]any{"value": "one"})
	idlePID := idle.PID()
	p.Release(idle)
	leased := mustGet(t, p, faultCfg(t, "--stderr", "second"), "s#1")
	leasedPID := leased.PID()
	other := mustGet(t, p, cfg, "s#2")
	defer p.Release(other)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	if err := p.ClosePartition(ctx, "s#1"); err != nil {
		t.Fatalf("ClosePartition: %v", err)
	}
	t.Logf("idle client ended %v after ClosePartition was called", time.Since(start))
	if left := groupProcs(t, idlePID); len(left) != 0 {
		t.Fatalf("idle client's group %d still has %v after ClosePartition returned", idlePID, left)
	}
	if len(groupProcs(t, leasedPID)) == 0 {
		t.Fatal("a leased client was ended before its release")
	}
	mustCall(t, leased, "echo", map[string]any{"text": "still works"})
	start = time.Now()
	p.Release(leased)
	waitGroupGone(t, leasedPID)
	t.Logf("leased client ended %v after its release", time.Since(start))
	if err := p.ClosePartition(ctx, "s#1"); err != nil { // nothing left: returns at once
		t.Fatalf("second ClosePartition: %v", err)
	}
	mustCall(t, other, "echo", map[string]any{"text": "untouched"})

	again := mustGet(t, p, cfg, "s#1")
	defer p.Release(again)
	if again.PID() == idlePID {
		t.Fatal("Get after ClosePartition reused the ended process")
	}
	if got := mustCall(t, again, "state_get", nil); got != "" {
		t.Fatalf("new client sees old state %q", got)
	}
}

// A partition closed while its client is still leased is torn down by Pool.Close too.
func TestCloseEndsLeasedClientOfClosedPartition(t *testing.T) {
	p := New(&Options{KillGrace: 200 * time.Millisecond})
	c := mustGet(t, p, faultCfg(t), "s#1")
	pid := c.PID()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.ClosePartition(ctx, "s#1"); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if left := groupProcs(t, pid); len(left) != 0 {
		t.Fatalf("group %d still has %v after Close", pid, left)
	}
	p.Release(c)
	if err := p.ClosePartition(ctx, "s#1"); err != nil {
		t.Fatalf("ClosePartition after Close: %v", err)
	}
}

// A client of a closed partition that is still leased is live (its calls work), so it still
// counts against MaxTotalClients until its last Release: closing sessions whose servers are
// busy must not let the pool start a process beyond the cap for every such session.
func TestClosePartitionLeasedClientStillCounts(t *testing.T) {
	p := newTestPool(t, &Options{MaxTotalClients: 1})
	cfg := faultCfg(t)
	leased := mustGet(t, p, cfg, "s#1")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.ClosePartition(ctx, "s#1"); err != nil {
		t.Fatal(err)
	}
	short, cancelShort := context.WithTimeout(context.Background(), 300*time.Millisecond)
	c, err := p.Get(short, cfg, "s#2")
	cancelShort()
	if err == nil {
		p.Release(c)
		p.Release(leased)
		t.Fatalf("Get in another partition started a second process (pids %d, %d) with MaxTotalClients 1 while the first is leased and live", leased.PID(), c.PID())
	}
	if !errors.Is(err, ErrPoolExhausted) {
		t.Fatalf("Get at the limit: %v, want ErrPoolExhausted", err)
	}

	// Its release frees the slot.
	p.Release(leased)
	testwait.For(t, "the released client to end", func() bool { return p.Stats().Processes == 0 })
	c, err = p.Get(ctx, cfg, "s#2")
	if err != nil {
		t.Fatalf("Get after the closed partition's client was released: %v", err)
	}
	p.Release(c)
}

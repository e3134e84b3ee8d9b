package connpool

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agentpool/agentpool/decl"
)

// BenchmarkShared64VsPrivate64 measures 64 concurrent callers of a 10 ms
// read-only tool sharing one pooled stdio connection (one process), against
// the baseline of 64 private connections (64 processes), in the same run.
// x-baseline is shared throughput / private throughput (target >= 0.9).
func BenchmarkShared64VsPrivate64(b *testing.B) {
	const callers = 64
	p := New(&Options{Subreaper: true, MaxClients: callers + 1, KillGrace: 500 * time.Millisecond})
	defer p.Close(context.Background())
	cfg := faultCfg(b, "--call-delay", "10ms")
	shared := mustGet(b, p, cfg, GlobalPartition)
	private := make([]*Conn, callers)
	for i := range private {
		private[i] = mustGet(b, p, cfg, "private-"+strconv.Itoa(i))
	}
	if s := p.Stats(); s.Processes != callers+1 {
		b.Fatalf("%d processes, want %d", s.Processes, callers+1)
	}
	run := func(conn func(i int) *Conn) time.Duration {
		var next atomic.Int64
		var wg sync.WaitGroup
		start := time.Now()
		for i := range callers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c := conn(i)
				for next.Add(1) <= int64(b.N) {
					if _, err := call(context.Background(), c, "lookup", map[string]any{"key": "k"}); err != nil {
						b.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		return time.Since(start)
	}
	b.ResetTimer()
	tShared := run(func(int) *Conn { return shared })
	tPrivate := run(func(i int) *Conn { return private[i] })
	b.StopTimer()
	b.ReportMetric(tPrivate.Seconds()/tShared.Seconds(), "x-baseline")
	b.ReportMetric(float64(b.N)/tShared.Seconds(), "shared-calls/s")
	b.ReportMetric(float64(b.N)/tPrivate.Seconds(), "private-calls/s")
	b.ReportMetric(1, "procs-shared")
	b.ReportMetric(callers, "procs-private")
}

// BenchmarkGetRelease measures a Get/Release pair on a live client against
// the baseline of a bare call on the same session.
func BenchmarkGetRelease(b *testing.B) {
	p := New(&Options{Subreaper: true, KillGrace: 500 * time.Millisecond})
	defer p.Close(context.Background())
	cfg := faultCfg(b)
	hold := mustGet(b, p, cfg, GlobalPartition)
	defer p.Release(hold)
	ctx := context.Background()
	b.ResetTimer()
	// Interleaved so that load from other processes hits both sides alike.
	var pooled, direct time.Duration
	for range b.N {
		start := time.Now()
		c, err := p.Get(ctx, cfg, GlobalPartition)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := call(ctx, c, "echo", map[string]any{"text": "x"}); err != nil {
			b.Fatal(err)
		}
		p.Release(c)
		pooled += time.Since(start)
		start = time.Now()
		if _, err := call(ctx, hold, "echo", map[string]any{"text": "x"}); err != nil {
			b.Fatal(err)
		}
		direct += time.Since(start)
	}
	b.StopTimer()
	b.ReportMetric(pooled.Seconds()/direct.Seconds(), "x-baseline")
}

// BenchmarkSpawnSandboxed measures the time from spawning a stdio server (the faultserver) to
// its answer to initialize, in a sandbox that reads its own folder and, separately, in one
// with network none too (a user and network namespace of its own), against the same server
// unsandboxed, interleaved in the same run so that load from other processes hits each alike.
// x-unsandboxed is the ratio of the medians, sandboxed ÷ unsandboxed (target ≤ 1.10);
// x-unsandboxed-nonet the same for network none; p50-*-ms are the medians. cpu-x-* are the
// same ratios for the CPU each start and close costs (this process and its reaped children:
// the launcher, the server, the guard), which waiting for a CPU on a loaded machine does not
// change as it changes the wall clock. The sandboxed
// servers start through the agentpool-sandbox launcher, which TestMain builds; with
// AGENTPOOL_SANDBOX_LAUNCHER set empty they start through this test binary re-executed, the
// fallback.
func BenchmarkSpawnSandboxed(b *testing.B) {
	ctx := context.Background()
	p := New(&Options{Subreaper: true, KillGrace: 500 * time.Millisecond})
	defer p.Close(ctx)
	plain := faultCfg(b)
	boxed := faultCfg(b)
	boxed.Sandbox = &decl.Sandbox{Read: []string{filepath.Dir(plain.Command)}}
	nonet := faultCfg(b)
	nonet.Sandbox = &decl.Sandbox{Read: []string{filepath.Dir(plain.Command)}, Network: decl.Network{Mode: decl.NetworkNone}}
	// cpu is the CPU time of this process and of its children reaped so far.
	cpu := func() time.Duration {
		var self, children syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
		_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
		return time.Duration(self.Utime.Nano() + self.Stime.Nano() + children.Utime.Nano() + children.Stime.Nano())
	}
	var cpuOf [3]time.Duration // plain, boxed, nonet
	spawn := func(cfg ServerConfig, partition string, kind int) time.Duration {
		before := cpu()
		start := time.Now()
		c, err := p.Get(ctx, cfg, partition)
		took := time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		p.Release(c)
		if err := p.ClosePartition(ctx, partition); err != nil {
			b.Fatal(err)
		}
		cpuOf[kind] += cpu() - before
		return took
	}
	spawn(nonet, "warm", 2) // the kernel's support is probed once per process
	cpuOf = [3]time.Duration{}
	var sandboxed, isolated, unsandboxed []time.Duration
	b.ResetTimer()
	for i := range b.N {
		n := strconv.Itoa(i)
		unsandboxed = append(unsandboxed, spawn(plain, "plain-"+n, 0))
		sandboxed = append(sandboxed, spawn(boxed, "boxed-"+n, 1))
		isolated = append(isolated, spawn(nonet, "nonet-"+n, 2))
	}
	b.StopTimer()
	ps, pn, pu := median(sandboxed), median(isolated), median(unsandboxed)
	b.ReportMetric(ps.Seconds()/pu.Seconds(), "x-unsandboxed")
	b.ReportMetric(pn.Seconds()/pu.Seconds(), "x-unsandboxed-nonet")
	b.ReportMetric(float64(ps.Microseconds())/1000, "p50-sandboxed-ms")
	b.ReportMetric(float64(pn.Microseconds())/1000, "p50-nonet-ms")
	b.ReportMetric(float64(pu.Microseconds())/1000, "p50-unsandboxed-ms")
	b.ReportMetric(cpuOf[1].Seconds()/cpuOf[0].Seconds(), "cpu-x-unsandboxed")
	b.ReportMetric(cpuOf[2].Seconds()/cpuOf[0].Seconds(), "cpu-x-unsandboxed-nonet")
}

// median returns the middle of ds (the upper one of an even count); ds is sorted in place.
func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}

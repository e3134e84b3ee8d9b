package mcpcap

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/agentpool/agentpool/ext"
	"sync"
	"testing"
	"time"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ratioBench times the direct baseline and the Cap interleaved in one loop, so drift on a
// shared machine hits both alike, and reports Cap time / baseline time as x-baseline.
func ratioBench(b *testing.B, base, via func() error) {
	b.Helper()
	for i := 0; i < 10; i++ { // warm up both paths
		if err := base(); err != nil {
			b.Fatal(err)
		}
		if err := via(); err != nil {
			b.Fatal(err)
		}
	}
	var tBase, tVia time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if err := base(); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := via(); err != nil {
			b.Fatal(err)
		}
		tVia += time.Since(t1)
		tBase += t1.Sub(t0)
	}
	b.StopTimer()
	b.ReportMetric(float64(tBase.Nanoseconds())/float64(b.N), "baseline-ns/call")
	b.ReportMetric(float64(tVia.Nanoseconds())/float64(b.N), "cap-ns/call")
	b.ReportMetric(float64(tVia)/float64(tBase), "x-baseline")
}

// BenchmarkCallToolInMemory: Cap.CallTool versus ClientSession.CallTool on the same in-process
// server and session (target x-baseline ≤ 1.10).
func BenchmarkCallToolInMemory(b *testing.B) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	type in struct {
		Text string `json:"text"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
		})
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	c, err := New(Config{Name: "bench"}, WithClient(cs))
	if err != nil {
		b.Fatal(err)
	}
	defer func() { c.Close(ctx); cs.Close(); ss.Wait() }()
	benchEcho(b, ctx, cs, c)
}

// BenchmarkCallToolStdio: the same over stdio to faultserver's echo; the baseline uses the very
// pooled session the Cap uses.
func BenchmarkCallToolStdio(b *testing.B) {
	bin := testserver.Build(b)
	ctx := context.Background()
	p := connpool.New(&connpool.Options{IdleTimeout: -1})
	defer p.Close(ctx)
	cfg := connpool.ServerConfig{Command: bin}
	lease, err := p.Get(ctx, cfg, connpool.GlobalPartition)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Release(lease)
	c, err := New(Config{Name: "fault", Server: cfg}, WithPool(p, ""))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close(ctx)
	benchEcho(b, ctx, lease.Session(), c)
	if st := p.Stats(); st.Processes != 1 {
		b.Fatalf("baseline and Cap used %d processes, want the same one", st.Processes)
	}
}

func benchEcho(b *testing.B, ctx context.Context, cs *mcp.ClientSession, c *Cap) {
	args := json.RawMessage(`{"text":"ping"}`)
	ratioBench(b,
		func() error {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: args})
			if err == nil && res.IsError {
				err = fmt.Errorf("baseline: tool error")
			}
			return err
		},
		func() error {
			res, err := c.CallTool(ctx, &ext.ToolCall{Name: "echo", Arguments: args})
			if err == nil && res.IsError {
				err = fmt.Errorf("cap: tool error")
			}
			return err
		})
}

// BenchmarkSharedVsPrivate64: 64 concurrent callers of a 10 ms tool sharing one pooled stdio
// connection versus 64 private connections (64 processes). Reports the throughput ratio
// shared/private (target ≥ 0.9) and the process counts.
func BenchmarkSharedVsPrivate64(b *testing.B) {
	const callers = 64
	bin := testserver.Build(b)
	ctx := context.Background()
	p := connpool.New(&connpool.Options{MaxClients: callers + 4, IdleTimeout: -1})
	defer p.Close(ctx)
	cfg := Config{Name: "sleep", Server: connpool.ServerConfig{Command: bin}, Scope: ScopeSession}
	shared, err := New(cfg, WithPool(p, "shared"))
	if err != nil {
		b.Fatal(err)
	}
	defer shared.Close(ctx)
	private := make([]*Cap, callers)
	for i := range private {
		if private[i], err = New(cfg, WithPool(p, fmt.Sprintf("private-%d", i))); err != nil {
			b.Fatal(err)
		}
		defer private[i].Close(ctx)
	}
	args := json.RawMessage(`{"ms":10}`)
	run := func(capFor func(i int) *Cap, perCaller int) time.Duration {
		var wg sync.WaitGroup
		errs := make(chan error, callers)
		t0 := time.Now()
		for i := 0; i < callers; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := 0; j < perCaller; j++ {
					if _, err := capFor(i).CallTool(ctx, &ext.ToolCall{Name: "sleep", Arguments: args}); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	// Start every process before timing.
	run(func(int) *Cap { return shared }, 1)
	sharedProcs := p.Stats().Processes
	run(func(i int) *Cap { return private[i] }, 1)
	allProcs := p.Stats().Processes
	b.ResetTimer()
	tShared := run(func(int) *Cap { return shared }, b.N)
	tPrivate := run(func(i int) *Cap { return private[i] }, b.N)
	b.StopTimer()
	calls := float64(callers * b.N)
	b.ReportMetric(calls/tShared.Seconds(), "shared-calls/s")
	b.ReportMetric(calls/tPrivate.Seconds(), "private-calls/s")
	b.ReportMetric(tPrivate.Seconds()/tShared.Seconds(), "throughput-ratio")
	b.ReportMetric(float64(sharedProcs), "shared-procs")
	b.ReportMetric(float64(allProcs-sharedProcs), "private-procs")
}

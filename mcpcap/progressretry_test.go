package mcpcap

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
)

// TestProgressMonotonicAcrossRetry: a call whose server is killed after reporting progress 1..4
// is retried on a new process, which reports 1..4 again; the caller, under the same token, sees
// progress that only increases, all eight notifications of it, and the result.
func TestProgressMonotonicAcrossRetry(t *testing.T) {
	bin := testserver.Build(t)
	p := newPool(t)
	c := newPoolCap(t, p, "", Config{Name: "fault", Server: connpool.ServerConfig{Server: decl.Server{Command: bin}},
		Retry: decl.Retry{Attempts: 3, Backoff: 10 * time.Millisecond, Calls: decl.CallsAlways}})
	pid, err := strconv.Atoi(callText(t, c, "pid", `{}`))
	if err != nil {
		t.Fatal(err)
	}
	release := filepath.Join(t.TempDir(), "release")
	args, _ := json.Marshal(map[string]any{"steps": 4, "wait_for": release})

	sink := &progressSink{}
	type result struct {
		res *ext.ToolResult
		err error
	}
	got := make(chan result, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		res, err := c.CallTool(ctx, &ext.ToolCall{Name: "progress", Arguments: args, Progress: sink.add})
		got <- result{res, err}
	}()
	testwait.For(t, "progress 1..4 from the first process", func() bool { return len(sink.list()) == 4 })
	if err := os.WriteFile(release, nil, 0o644); err != nil { // the retried call answers at once
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	r := <-got
	if r.err != nil || r.res.IsError || len(r.res.Content) == 0 || r.res.Content[0].Text != "done" {
		t.Fatalf("the retried call: %v %+v", r.err, r.res)
	}
	values := sink.list()
	if len(values) != 8 {
		t.Fatalf("%d progress notifications across the retry, want 8: %+v", len(values), values)
	}
	for i := 1; i < len(values); i++ {
		if values[i].Progress <= values[i-1].Progress {
			t.Fatalf("progress went from %v to %v across the retry: %+v", values[i-1].Progress, values[i].Progress, values)
		}
		if values[i].Total != 0 && values[i].Total < values[i].Progress {
			t.Fatalf("progress %v beyond its total %v: %+v", values[i].Progress, values[i].Total, values)
		}
	}
}

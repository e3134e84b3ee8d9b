package gateway

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/agentpool/agentpool/ext"
)

// namedTools is the smallest ToolProvider that is a Capability, as every registered one is;
// callDone reads only its name.
type namedTools struct{ name string }

func (n namedTools) Name() string                                 { return n.name }
func (namedTools) Close(context.Context) error                    { return nil }
func (namedTools) Tools(context.Context) ([]ext.ToolEntry, error) { return nil, nil }
func (namedTools) CallTool(context.Context, *ext.ToolCall) (*ext.ToolResult, error) {
	return nil, nil
}

// TestCallDoneAllocatesNothing: counting a call (metrics on, debug logging off, the tool's
// label children resolved by an earlier call) and reading a passed-through result allocate
// nothing: the hot path pays no garbage for its metrics.
func TestCallDoneAllocatesNothing(t *testing.T) {
	m := NewMetrics(nil)
	s := &session{g: &Gateway{opts: Options{Metrics: m}, log: slog.New(slog.NewTextHandler(nil, &slog.HandlerOptions{Level: slog.LevelError}))}, id: "abcdefghijklmnopqrstuvwxyz"}
	var p ext.ToolProvider = namedTools{"fault"} // boxed once, as a registered capability is
	ctx := context.Background()
	start := time.Now()
	s.callDone(ctx, p, "fault__echo", start, callOK) // resolves the label children
	res := []byte(`{"content":[{"type":"text","text":"hello"}],"isError":true}`)
	if n := testing.AllocsPerRun(100, func() {
		s.callDone(ctx, p, "fault__echo", start, callToolError)
		_ = rawIsError(res)
	}); n != 0 {
		t.Errorf("%v allocations per call, want 0", n)
	}
	if v := testutilCount(t, m, "agentpool_tool_calls_total"); v != 102 {
		t.Errorf("calls %v, want 102 (AllocsPerRun runs once more than asked)", v)
	}
}

// testutilCount returns the value of the only series of the counter name.
func testutilCount(t *testing.T, m *Metrics, name string) float64 {
	t.Helper()
	fams, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() == name && len(f.GetMetric()) == 1 {
			return f.GetMetric()[0].GetCounter().GetValue()
		}
	}
	t.Fatalf("no single series of %s", name)
	return 0
}

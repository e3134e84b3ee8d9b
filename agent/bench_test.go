package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/mcpcap"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stepModel asks for calls at every odd step and answers at every even one: each Run is one
// tool step and one answering step.
type stepModel struct {
	calls []agent.ToolCall
	n     int
}

func (m *stepModel) Generate(context.Context, *agent.Request) (*agent.Response, error) {
	m.n++
	if m.n%2 == 1 {
		return &agent.Response{ToolCalls: m.calls}, nil
	}
	return &agent.Response{Text: "ok"}, nil
}

// BenchmarkStepOverhead measures one agent turn of one tool step — the view from the cache,
// 8 parallel tool calls through the view and an mcpcap.Cap to an in-memory go-sdk server,
// then the answering step — against the baseline in the same run: the same 8 calls made
// concurrently on the go-sdk client session directly. ratio = agent / direct (target ≤ 1.1).
func BenchmarkStepOverhead(b *testing.B) {
	ctx := context.Background()
	srv := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	type arg struct {
		Text string `json:"text"`
	}
	for i := range 8 {
		mcp.AddTool(srv, &mcp.Tool{Name: fmt.Sprintf("t%d", i), Description: "echo"},
			func(_ context.Context, _ *mcp.CallToolRequest, in arg) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
			})
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	prefix := "bench__"
	c, err := mcpcap.New(mcpcap.Config{Name: "bench", Prefix: &prefix}, mcpcap.WithClient(cs))
	if err != nil {
		b.Fatal(err)
	}
	reg := ext.NewRegistry(nil)
	defer reg.Close(ctx)
	if err := reg.Register(c, ext.LevelPool, ext.Scope{}); err != nil {
		b.Fatal(err)
	}
	m := &stepModel{}
	for i := range 8 {
		m.calls = append(m.calls, agent.ToolCall{ID: fmt.Sprint(i), Name: fmt.Sprintf("bench__t%d", i), Arguments: json.RawMessage(`{"text":"hi"}`)})
	}
	a, err := agent.New(agent.Options{Model: m, Registry: reg, Scope: ext.Scope{SessionID: "s", AgentName: "a"}})
	if err != nil {
		b.Fatal(err)
	}
	direct := func() {
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Go(func() {
				r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: fmt.Sprintf("t%d", i), Arguments: map[string]any{"text": "hi"}})
				if err != nil || r.IsError {
					b.Error(r, err)
				}
			})
		}
		wg.Wait()
	}
	run := func() {
		res, err := a.Run(ctx, &agent.Input{Prompt: "go"})
		if err != nil || len(res.Messages) != 11 || res.Messages[2].IsError {
			b.Fatal(res, err)
		}
	}
	run() // the first Run compiles the view; every later one finds it in the cache
	direct()
	var tDirect, tAgent time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		direct()
		t1 := time.Now()
		run()
		tAgent += time.Since(t1)
		tDirect += t1.Sub(t0)
	}
	b.StopTimer()
	b.ReportMetric(float64(tDirect.Nanoseconds())/float64(b.N), "direct-ns/op")
	b.ReportMetric(float64(tAgent.Nanoseconds())/float64(b.N), "agent-ns/op")
	b.ReportMetric(float64(tAgent)/float64(tDirect), "ratio")
}

package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/ext"
)

// Two delegate calls to one subagent name in one step: the second is refused while the first
// runs (they would share one agent scope); an unknown name and a failing subagent are tool
// errors for the parent, whose run goes on.
func TestDelegateErrors(t *testing.T) {
	release := make(chan struct{})
	slow := newFake("slow").add("hold", func(ctx context.Context, _ json.RawMessage) (*ext.ToolResult, error) {
		select {
		case <-release:
			return ext.TextResult("held"), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	var caps sync.Mutex
	var built []*fake
	helper := agent.SubagentSpec{Name: "helper", Model: newScript(call("slow-own__hold", `{}`), answerLast),
		Capabilities: func(context.Context) ([]ext.Capability, error) {
			f := newFake("slow-own").add("slow-own__hold", func(ctx context.Context, a json.RawMessage) (*ext.ToolResult, error) {
				return slow.CallTool(ctx, &ext.ToolCall{Name: "hold", Arguments: a})
			})
			caps.Lock()
			built = append(built, f)
			caps.Unlock()
			return []ext.Capability{f}, nil
		}}
	failing := agent.SubagentSpec{Name: "failing", Model: newScript(func(*agent.Request) (*agent.Response, error) { return nil, errors.New("model down") })}
	parent := newScript(
		func(req *agent.Request) (*agent.Response, error) {
			return call("delegate", `{"agent":"helper","prompt":"a"}`, "delegate", `{"agent":"helper","prompt":"b"}`,
				"delegate", `{"agent":"ghost","prompt":"c"}`, "delegate", `{"agent":"failing","prompt":"d"}`)(req)
		},
		answer("done"))
	// The held call is released once the other spawn has been refused, so the refusal cannot
	// come after the first spawn ended.
	var refused sync.Once
	obs := func(e agent.Event) {
		if e.Kind == agent.EventToolResult && e.Agent == "main" && strings.Contains(e.Result.Text(), "already running") {
			refused.Do(func() { close(release) })
		}
	}
	a, reg := setup(t, parent, &agent.Options{Subagents: []agent.SubagentSpec{helper, failing}, Observer: obs})
	res, err := a.Run(context.Background(), &agent.Input{Prompt: "x"})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Messages[2:6]
	texts := []string{r[0].Text(), r[1].Text()}
	ok, busy := 0, 0
	for i, tx := range texts {
		switch {
		case tx == "held" && !r[i].IsError:
			ok++
		case r[i].IsError && strings.Contains(tx, "already running"):
			busy++
		}
	}
	if ok != 1 || busy != 1 {
		t.Errorf("helper results = %q, want one answer and one refusal", texts)
	}
	if !r[2].IsError || !strings.Contains(r[2].Text(), `no subagent "ghost"`) {
		t.Errorf("ghost = %+v", r[2])
	}
	if !r[3].IsError || !strings.Contains(r[3].Text(), "model down") {
		t.Errorf("failing = %+v", r[3])
	}
	caps.Lock()
	defer caps.Unlock()
	for _, f := range built {
		if !f.isClosed() {
			t.Error("a subagent's capability was not closed")
		}
	}
	if n := len(reg.Registrations(ext.Scope{SessionID: "s1", AgentName: "helper"})); n != 0 {
		t.Errorf("helper scope still has %d registrations", n)
	}
}

package agent_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agentpool/agentpool/agent"
)

// A model that repeats a tool-call id within a step, or whose generated ids collide with the
// history's (a new turn restarts the step count), must not leave two calls with one id:
// results are paired by id, and Anthropic rejects a conversation with duplicate tool_use ids.
func TestToolCallIDsUniqueInConversation(t *testing.T) {
	f := newFake("f").add("echo", echo)
	dup := func(*agent.Request) (*agent.Response, error) {
		return &agent.Response{ToolCalls: []agent.ToolCall{
			{Name: "echo", Arguments: json.RawMessage(`{"a":1}`)},
			{ID: "x", Name: "echo", Arguments: json.RawMessage(`{"b":2}`)},
			{ID: "x", Name: "echo", Arguments: json.RawMessage(`{"c":3}`)},
		}}, nil
	}
	m := newScript(dup, answer("one"), call("echo", `{}`), answer("two"))
	a, _ := setup(t, m, nil, f)
	r1, err := a.Run(context.Background(), &agent.Input{Prompt: "1"})
	if err != nil {
		t.Fatal(err)
	}
	r2, err := a.Run(context.Background(), &agent.Input{Prompt: "2", History: r1.Messages})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, msg := range append(append([]agent.Message(nil), r1.Messages...), r2.Messages...) {
		for _, c := range msg.ToolCalls {
			if c.ID == "" || seen[c.ID] {
				t.Errorf("tool call id %q empty or used twice", c.ID)
			}
			seen[c.ID] = true
		}
	}
	// Each result answers its own call, in order.
	asst := r1.Messages[1]
	for i, want := range []string{`{"a":1}`, `{"b":2}`, `{"c":3}`} {
		r := r1.Messages[2+i]
		if r.ToolCallID != asst.ToolCalls[i].ID || r.Text() != want {
			t.Errorf("result %d = %+v, call %+v", i, r, asst.ToolCalls[i])
		}
	}
}

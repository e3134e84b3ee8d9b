package acp_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/agent/acp"
	"github.com/agentpool/agentpool/exposure"
	"github.com/agentpool/agentpool/ext"
)

// offered is the names of the tools a request offers the model.
func offered(req *agent.Request) []string {
	var out []string
	for _, t := range req.Tools {
		out = append(out, t.Name)
	}
	slices.Sort(out)
	return out
}

// With Options.Tools in search mode a session's model is offered the search and call tools
// instead of the view's; a search activates what it found for the next step, and a call made
// through the call tool is judged by the permission policy as the tool it reaches: a denied
// tool does not run, and a tool that asks is asked about under its own title.
func TestSearchModeThroughACP(t *testing.T) {
	b := newBox()
	var ran sync.Map
	for _, n := range []string{"rm", "stamp"} {
		b.tools[n] = func(context.Context, json.RawMessage) (*ext.ToolResult, error) {
			ran.Store(n, true)
			return ext.TextResult(n + " ran"), nil
		}
	}
	var step atomic.Int32
	m := &model{fn: func(req *agent.Request) (*agent.Response, error) {
		switch step.Add(1) {
		case 1:
			return &agent.Response{ToolCalls: []agent.ToolCall{{ID: "s", Name: exposure.SearchTool, Arguments: json.RawMessage(`{"query":"stamp","limit":1}`)}}}, nil
		case 2:
			return &agent.Response{ToolCalls: []agent.ToolCall{{ID: "a", Name: "stamp"},
				{ID: "b", Name: exposure.CallTool, Arguments: json.RawMessage(`{"name":"rm","arguments":{}}`)}}}, nil
		}
		return &agent.Response{Text: "done"}, nil
	}}
	f := start(t, m, acp.Options{Tools: exposure.Config{Mode: exposure.ModeSearch}, Permission: func(o ext.Origin, tool string) string {
		if o.Location == "mcp://box" && tool == "rm" {
			return acp.PermissionDeny
		}
		return ""
	}}, b)
	f.initialize(t)
	f.prompt(t, f.newSession(t), "go")
	reqs := m.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	if got := offered(reqs[0]); !slices.Contains(got, exposure.SearchTool) || !slices.Contains(got, exposure.CallTool) ||
		slices.Contains(got, "stamp") || slices.Contains(got, "rm") {
		t.Errorf("first step offered %v, want the search and call tools, not the view's", got)
	}
	if got := offered(reqs[1]); !slices.Contains(got, "stamp") || slices.Contains(got, "rm") {
		t.Errorf("after the search the model was offered %v, want stamp and not rm", got)
	}
	if _, ok := ran.Load("stamp"); !ok {
		t.Error("the activated tool did not run")
	}
	if _, ok := ran.Load("rm"); ok {
		t.Error("the denied tool ran through the call tool")
	}
	f.client.mu.Lock()
	asked := slices.Clone(f.client.asked)
	f.client.mu.Unlock()
	if len(asked) != 1 || asked[0].ToolCall.Title == nil || *asked[0].ToolCall.Title != "stamp" {
		t.Errorf("asked %+v, want once, for stamp", asked)
	}
	var told bool
	for _, msg := range reqs[2].Messages {
		if msg.ToolCallID == "b" && msg.IsError && strings.Contains(msg.Text(), "denies") {
			told = true
		}
	}
	if !told {
		t.Error("the model was not told the call through the call tool was denied")
	}
}

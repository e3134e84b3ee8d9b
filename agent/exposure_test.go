package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/exposure"
)

// With tools in search mode the model is offered the search and call tools; a search
// activates the tools it found for the next step, and the call tool reaches any tool.
func TestSearchModeOffersFoundTools(t *testing.T) {
	f := newFake("f").add("weather", echo).add("stocks", echo).add("translate", echo)
	m := newScript(
		call(exposure.SearchTool, `{"query":"weather forecast","limit":1}`),
		call("weather", `{"city":"Oslo"}`, exposure.CallTool, `{"name":"stocks","arguments":{"sym":"X"}}`),
		answer("done"),
	)
	a, _ := setup(t, m, &agent.Options{Tools: exposure.Config{Mode: exposure.ModeSearch}}, f)
	res, err := a.Run(context.Background(), &agent.Input{Prompt: "hi"})
	if err != nil || res.Stop != agent.StopDone {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	reqs := m.requests()
	if got := toolNames(reqs[0]); got["weather"] || got["stocks"] || !got[exposure.SearchTool] || !got[exposure.CallTool] {
		t.Errorf("first step offered %v, want the search and call tools, not the view's", got)
	}
	if got := toolNames(reqs[1]); !got["weather"] || got["stocks"] {
		t.Errorf("after the search the model was offered %v, want weather", got)
	}
	for i, want := range map[int]string{4: `{"city":"Oslo"}`, 5: `{"sym":"X"}`} {
		if r := res.Messages[i]; r.IsError || r.Text() != want {
			t.Errorf("result %d = %+v, want %s", i, r, want)
		}
	}
}

// In search mode a tool of the view neither always on nor found is not offered, and a call of
// it by its name is an error result pointing to the call and search tools; the call tool
// reaches it.
func TestSearchModeRefusesUnofferedByName(t *testing.T) {
	f := newFake("f").add("weather", echo).add("stocks", echo)
	m := newScript(
		call("stocks", `{"sym":"X"}`),
		answer("done"),
	)
	a, _ := setup(t, m, &agent.Options{Tools: exposure.Config{Mode: exposure.ModeSearch}}, f)
	res, err := a.Run(context.Background(), &agent.Input{Prompt: "hi"})
	if err != nil || res.Stop != agent.StopDone {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	if r := res.Messages[2]; !r.IsError || !strings.Contains(r.Text(), exposure.CallTool) || !strings.Contains(r.Text(), exposure.SearchTool) {
		t.Errorf("stocks called by its name = %+v, want an error naming %s and %s", r, exposure.CallTool, exposure.SearchTool)
	}
}

package openai_test

import (
	"context"
	"encoding/json"
	"regexp"
	"testing"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/agent/internal/adaptertest"
	"github.com/agentpool/agentpool/agent/openai"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/view"
)

// nameRule is what the OpenAI API accepts as a function name.
var nameRule = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// Servers whose qualified tool names break the rule (a dotted plugin server, an 80-character
// server name, an upstream "read.graph"): every function name the request body sends matches
// it, and the calls the endpoint answers with, under those names, reach the right upstream
// tools, whose results go back in the next request.
func TestFunctionNamesMatchTheRule(t *testing.T) {
	deploy := view.ServedName("deploy.api__read.graph")
	long := view.ServedName(adaptertest.LongServer + "__read.graph")
	s := newChatServer(t,
		completion("", deploy, `{}`, long, `{}`, "deploy_api__search", `{"query":"go"}`),
		completion("done"))
	a, err := agent.New(agent.Options{Model: s.model(t, openai.Options{}), Registry: adaptertest.NamedRegistry(t),
		Scope: ext.Scope{SessionID: "s1", AgentName: "main"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Run(context.Background(), &agent.Input{Prompt: "read both graphs"}); err != nil {
		t.Fatal(err)
	}
	bodies := s.requests()
	var first struct {
		Tools []struct {
			Function struct{ Name string } `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(bodies[0], &first); err != nil {
		t.Fatal(err)
	}
	sent := map[string]bool{}
	for _, tool := range first.Tools {
		sent[tool.Function.Name] = true
		if !nameRule.MatchString(tool.Function.Name) {
			t.Errorf("function name %q sent, which the rule refuses", tool.Function.Name)
		}
	}
	for _, want := range []string{deploy, long, "deploy_api__search"} {
		if !sent[want] {
			t.Errorf("%s not sent: %v", want, sent)
		}
	}
	var second struct {
		Messages []struct {
			Role       string `json:"role"`
			Content    any    `json:"content"`
			ToolCallID string `json:"tool_call_id"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(bodies[1], &second); err != nil {
		t.Fatal(err)
	}
	results := map[string]any{}
	for _, m := range second.Messages {
		if m.Role == "tool" {
			results[m.ToolCallID] = m.Content
		}
	}
	for id, want := range map[string]string{"call_0": "graph of deploy.api", "call_1": "graph of " + adaptertest.LongServer, "call_2": "2 hits"} {
		if results[id] != want {
			t.Errorf("result of %s = %v, want %q", id, results[id], want)
		}
	}

	// The Responses API's tools, for a caller driving openai-go itself, carry the same names.
	v, err := view.Compile(context.Background(), adaptertest.NamedRegistry(t), ext.Scope{SessionID: "s1", AgentName: "main"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(openai.ResponsesTools(agent.ToolDefs(v)))
	if err != nil {
		t.Fatal(err)
	}
	var rtools []struct{ Name string }
	if err := json.Unmarshal(b, &rtools); err != nil {
		t.Fatal(err)
	}
	if len(rtools) != len(v.Tools) {
		t.Errorf("%d Responses tools, want %d", len(rtools), len(v.Tools))
	}
	for _, tool := range rtools {
		if !nameRule.MatchString(tool.Name) {
			t.Errorf("Responses tool name %q, which the rule refuses", tool.Name)
		}
	}
}

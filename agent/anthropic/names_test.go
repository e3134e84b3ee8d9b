package anthropic_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"testing"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/agent/anthropic"
	"github.com/agentpool/agentpool/agent/internal/adaptertest"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/view"
)

// nameRule is what the Messages API accepts as a tool name.
var nameRule = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// Servers whose qualified tool names break the rule (a dotted plugin server, an 80-character
// server name, an upstream "read.graph"): every tool name the request body sends matches it,
// and tool_use blocks the server answers with, under those names, reach the right upstream
// tools through the view.
func TestToolNamesMatchTheRule(t *testing.T) {
	ctx := context.Background()
	v, err := view.Compile(ctx, adaptertest.NamedRegistry(t), ext.Scope{SessionID: "s1", AgentName: "main"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	deploy := view.ServedName("deploy.api__read.graph")
	long := view.ServedName(adaptertest.LongServer + "__read.graph")
	reply := fmt.Sprintf(`{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","stop_reason":"tool_use",
"content":[{"type":"tool_use","id":"toolu_1","name":%q,"input":{}},{"type":"tool_use","id":"toolu_2","name":%q,"input":{}},
{"type":"tool_use","id":"toolu_3","name":"deploy_api__search","input":{"query":"go"}}],
"usage":{"input_tokens":1,"output_tokens":1}}`, deploy, long)
	req := &agent.Request{Messages: []agent.Message{agent.UserMessage("read both graphs")}, Tools: agent.ToolDefs(v)}
	body, msg := send(t, anthropic.Params("claude-test", 1024, req), reply)

	var sent struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	if err := json.Unmarshal(body, &sent); err != nil {
		t.Fatal(err)
	}
	if len(sent.Tools) != len(v.Tools) {
		t.Errorf("%d tools sent for a view of %d", len(sent.Tools), len(v.Tools))
	}
	for _, tool := range sent.Tools {
		if !nameRule.MatchString(tool.Name) {
			t.Errorf("tool name %q sent, which the rule refuses", tool.Name)
		}
	}
	want := map[string]string{"toolu_1": "graph of deploy.api", "toolu_2": "graph of " + adaptertest.LongServer, "toolu_3": "2 hits"}
	calls := anthropic.FromMessage(msg).ToolCalls
	if len(calls) != len(want) {
		t.Fatalf("tool calls %+v, want %d", calls, len(want))
	}
	for _, c := range calls {
		res, err := v.CallTool(ctx, &ext.ToolCall{Name: c.Name, Arguments: c.Arguments})
		if err != nil {
			t.Errorf("call %s: %v", c.Name, err)
			continue
		}
		if got := res.Content[0].Text; got != want[c.ID] {
			t.Errorf("%s (%s) answered %q, want %q", c.ID, c.Name, got, want[c.ID])
		}
	}
}

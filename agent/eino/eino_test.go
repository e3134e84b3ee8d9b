package eino_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/agent/eino"
	"github.com/agentpool/agentpool/agent/internal/adaptertest"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/view"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func fixtureView(t *testing.T) *view.View {
	t.Helper()
	v, err := view.Compile(context.Background(), adaptertest.Registry(t), ext.Scope{SessionID: "s1", AgentName: "main"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func byName(t *testing.T, tools []tool.InvokableTool) map[string]tool.InvokableTool {
	t.Helper()
	m := map[string]tool.InvokableTool{}
	for _, tl := range tools {
		info, err := tl.Info(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		m[info.Name] = tl
	}
	return m
}

// TestInfoKeepsSchemas: every view tool is one eino tool whose schema, as eino hands it to a
// chat model, is the server's ($defs, enums, nested objects, no arguments).
func TestInfoKeepsSchemas(t *testing.T) {
	ctx := context.Background()
	v := fixtureView(t)
	tools, err := eino.Tools(v)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != len(v.Tools) {
		t.Fatalf("%d eino tools for %d view tools", len(tools), len(v.Tools))
	}
	got := map[string]any{}
	for _, tl := range tools {
		info, err := tl.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		js, err := info.ToJSONSchema()
		if err != nil {
			t.Fatal(err)
		}
		got[info.Name] = map[string]any{"description": info.Desc, "schema": js}
	}
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	adaptertest.Golden(t, "tools.golden", b)
}

// TestRoundTrip runs the view's tools in an eino ToolsNode: an assistant message with tool
// calls in, tool messages out, each result mapped from its MCP content.
func TestRoundTrip(t *testing.T) {
	ctx := context.Background()
	tools, err := eino.Tools(fixtureView(t))
	if err != nil {
		t.Fatal(err)
	}
	base := make([]tool.BaseTool, len(tools))
	for i, tl := range tools {
		base[i] = tl
	}
	node, err := compose.NewToolNode(ctx, &compose.ToolsNodeConfig{Tools: base})
	if err != nil {
		t.Fatal(err)
	}
	call := func(id, name, args string) schema.ToolCall {
		return schema.ToolCall{ID: id, Type: "function", Function: schema.FunctionCall{Name: name, Arguments: args}}
	}
	out, err := node.Invoke(ctx, schema.AssistantMessage("", []schema.ToolCall{
		call("1", "search", `{"query":"go"}`),
		call("2", "kinds", `{}`),
		call("3", "weather", `{"city":"Paris"}`),
		call("4", "fails", ``),
		call("5", "now", ``),
	}))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, m := range out {
		if m.Role != schema.Tool {
			t.Errorf("message %+v is not a tool message", m)
		}
		got[m.ToolCallID] = m.Content
	}
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	adaptertest.Golden(t, "roundtrip.golden", b)
}

// TestEnhancedKeepsBinary: the multimodal interface keeps the image, audio and blobs as parts.
func TestEnhancedKeepsBinary(t *testing.T) {
	tools, err := eino.EnhancedTools(fixtureView(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools {
		info, _ := tl.Info(context.Background())
		if info.Name != "kinds" {
			continue
		}
		res, err := tl.InvokableRun(context.Background(), &schema.ToolArgument{Text: `{}`})
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		adaptertest.Golden(t, "enhanced.golden", b)
		return
	}
	t.Fatal("no kinds tool")
}

// TestCallFailure: a call that cannot be made (arguments that are not JSON) is an error
// naming the tool, not a result.
func TestCallFailure(t *testing.T) {
	v := fixtureView(t)
	tools, err := eino.Tools(v)
	if err != nil {
		t.Fatal(err)
	}
	_, err = byName(t, tools)["search"].InvokableRun(context.Background(), `{"query":`)
	if err == nil || !strings.Contains(err.Error(), "eino: tool search") {
		t.Fatalf("err = %v, want an error naming the tool", err)
	}
}

package eino_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agentpool/agentpool/agent/eino"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/view"
	"github.com/cloudwego/eino/schema"
)

// silent is a capability whose one tool answers no result at all (nil, nil): ext's contract
// does not forbid it, and package agent takes it as an empty result.
type silent struct{}

func (silent) Name() string                { return "silent" }
func (silent) Close(context.Context) error { return nil }
func (silent) Tools(context.Context) ([]ext.ToolEntry, error) {
	return []ext.ToolEntry{{Name: "nothing", InputSchema: json.RawMessage(`{"type":"object"}`)}}, nil
}
func (silent) CallTool(context.Context, *ext.ToolCall) (*ext.ToolResult, error) { return nil, nil }

// A tool that returns no result is an empty result, not a nil dereference in the caller's
// eino graph.
func TestNilResultIsEmpty(t *testing.T) {
	reg := ext.NewRegistry(nil)
	t.Cleanup(func() { reg.Close(context.Background()) })
	if err := reg.Register(silent{}, ext.LevelPool, ext.Scope{}); err != nil {
		t.Fatal(err)
	}
	v, err := view.Compile(context.Background(), reg, ext.Scope{SessionID: "s1", AgentName: "main"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := eino.Tools(v)
	if err != nil || len(tools) != 1 {
		t.Fatalf("Tools = %d, %v", len(tools), err)
	}
	if out, err := tools[0].InvokableRun(context.Background(), `{}`); err != nil || out != "" {
		t.Errorf("InvokableRun = %q, %v", out, err)
	}
	et, err := eino.EnhancedTools(v)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := et[0].InvokableRun(context.Background(), &schema.ToolArgument{Text: `{}`}); err != nil || out == nil || len(out.Parts) != 0 {
		t.Errorf("enhanced InvokableRun = %+v, %v", out, err)
	}
}

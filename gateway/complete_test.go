package gateway_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentpool/agentpool/ext"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// picker is a command source that completes its command's argument, as an upstream server
// with the completions capability does.
type picker struct {
	mu   sync.Mutex
	refs []string // the prompt names Complete was asked about
}

func (*picker) Name() string                { return "picker" }
func (*picker) Close(context.Context) error { return nil }
func (*picker) Origin() ext.Origin          { return ext.RemoteOrigin("picker") }
func (p *picker) ListCommands(context.Context) ([]ext.CommandEntry, error) {
	return []ext.CommandEntry{{Name: "pick", QualifiedName: "picker:pick", Source: "mcp",
		Arguments: []ext.CommandArgument{{Name: "color", Required: true}}}}, nil
}
func (*picker) GetCommand(_ context.Context, req *ext.CommandRequest) (*ext.PromptResult, error) {
	return ext.UserPrompt("picked " + req.Named["color"]), nil
}
func (p *picker) Complete(_ context.Context, req *ext.CompleteRequest) (*ext.CompleteResult, error) {
	p.mu.Lock()
	p.refs = append(p.refs, req.Ref.Name)
	p.mu.Unlock()
	var out []string
	for _, c := range []string{"red", "green", "rose"} {
		if strings.HasPrefix(c, req.Argument.Value) {
			out = append(out, c)
		}
	}
	return &ext.CompleteResult{Values: out}, nil
}

// TestCompletionRouted: completion/complete for a prompt goes to the capability that owns it,
// under the name that capability knows; a prompt without a completer gets an empty answer and
// an unknown one an error.
func TestCompletionRouted(t *testing.T) {
	f := newFixture(t, nil)
	p := &picker{}
	if err := f.h.Registry.Register(p, ext.LevelPool, ext.Scope{}); err != nil {
		t.Fatal(err)
	}
	cs, _ := connect(t, f.url, nil)
	ctx := context.Background()
	res, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "pick"},
		Argument: mcp.CompleteParamsArgument{Name: "color", Value: "r"}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Completion.Values, []string{"red", "rose"}) {
		t.Errorf("values %v, want red and rose", res.Completion.Values)
	}
	if !slices.Equal(p.refs, []string{"picker:pick"}) {
		t.Errorf("the completer was asked about %v, want picker:pick", p.refs)
	}
	res, err = cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "greet"},
		Argument: mcp.CompleteParamsArgument{Name: "arguments", Value: "x"}})
	if err != nil || len(res.Completion.Values) != 0 {
		t.Errorf("a skill's prompt: %v %+v, want an empty completion", err, res)
	}
	if _, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "nope"},
		Argument: mcp.CompleteParamsArgument{Name: "a"}}); err == nil {
		t.Error("an unknown prompt completed")
	}
}

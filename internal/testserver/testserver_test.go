package testserver

import (
	"context"
	"errors"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestFaultserverServesItsSurface(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil)
	s, err := c.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(Build(t))}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tools, err := s.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	for _, want := range []string{"echo", "pid", "sleep", "count", "lookup", "state_set", "state_get", "crash", "add_tool", "stderr"} {
		if !slices.Contains(names, want) {
			t.Errorf("tool %s missing from %v", want, names)
		}
	}
	for i, want := range []string{"1", "2"} {
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "count"})
		if err != nil || res.Content[0].(*mcp.TextContent).Text != want {
			t.Fatalf("count #%d: %v %v", i+1, res, err)
		}
	}
	r, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://static/hello"})
	if err != nil || r.Contents[0].Text != "hello" {
		t.Fatalf("resource: %v %v", r, err)
	}
	pr, err := s.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"name": "Ada"}})
	if err != nil || pr.Messages[0].Content.(*mcp.TextContent).Text != "Hello, Ada!" {
		t.Fatalf("prompt: %v %v", pr, err)
	}
}

func TestFaultserverExitAtStart(t *testing.T) {
	out, err := exec.Command(Build(t), "--exit-at-start", "2").CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || len(out) == 0 {
		t.Fatalf("exit-at-start: %v, output %q", err, out)
	}
}

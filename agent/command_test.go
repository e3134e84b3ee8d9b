package agent_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/ext"
)

// commands is a capability serving one command whose expansion is a user and an assistant
// message, the arguments joined into the first.
type commands struct{ *fake }

func (c commands) ListCommands(context.Context) ([]ext.CommandEntry, error) {
	return []ext.CommandEntry{{Name: "review", Description: "review a file", Source: "file"}}, nil
}

func (c commands) GetCommand(_ context.Context, req *ext.CommandRequest) (*ext.PromptResult, error) {
	if req.Name != "review" {
		return nil, ext.ErrNotFound
	}
	return &ext.PromptResult{Messages: []ext.PromptMessage{
		{Role: ext.RoleUser, Content: ext.Content{Type: ext.ContentText, Text: "Review " + strings.Join(req.Args, " ")}},
		{Role: ext.RoleAssistant, Content: ext.Content{Type: ext.ContentText, Text: "Which aspects?"}},
		{Role: ext.RoleUser, Content: ext.Content{Type: ext.ContentText, Text: "All of them."}},
	}}, nil
}

func TestCommandInputIsTheTurn(t *testing.T) {
	m := newScript(answer("done"))
	a, _ := setup(t, m, nil, commands{newFake("cmds")})
	in, err := a.CommandInput(context.Background(), &ext.CommandRequest{Name: "/review", Args: []string{"main.go"}})
	if err != nil {
		t.Fatal(err)
	}
	if in.Prompt != "Review main.go\nAll of them." {
		t.Errorf("prompt %q", in.Prompt)
	}
	res, err := a.Run(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	msgs := m.requests()[0].Messages
	if len(msgs) != 3 || msgs[0].Role != agent.RoleUser || msgs[0].Text() != "Review main.go" ||
		msgs[1].Role != agent.RoleAssistant || msgs[1].Text() != "Which aspects?" || msgs[2].Text() != "All of them." {
		t.Errorf("the model got %+v", msgs)
	}
	if len(res.Messages) != 4 || res.Messages[0].Text() != "Review main.go" {
		t.Errorf("the turn's messages %+v", res.Messages)
	}
}

func TestCommandInputUnknown(t *testing.T) {
	m := newScript()
	a, _ := setup(t, m, nil, commands{newFake("cmds")})
	_, err := a.CommandInput(context.Background(), &ext.CommandRequest{Name: "/nope"})
	if !errors.Is(err, ext.ErrNotFound) || !strings.Contains(err.Error(), "/nope") {
		t.Errorf("err %v", err)
	}
	if len(m.requests()) != 0 {
		t.Error("the model was asked")
	}
}

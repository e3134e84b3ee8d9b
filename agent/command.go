package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentpool/agentpool/ext"
)

// CommandInput expands the command req names ("/review", "skill:pdf", an upstream prompt's
// "/server:prompt") through the view of the agent's scope and returns it as a turn's input:
// the expansion's role-tagged messages, and as Prompt the text of its user messages, which
// selects the turn's skills. An unknown command is an error wrapping ext.ErrNotFound; nothing
// is sent to the model.
//
// Front ends (a terminal, an ACP client) parse the user's line; the agent only expands.
func (a *Agent) CommandInput(ctx context.Context, req *ext.CommandRequest) (*Input, error) {
	v, err := a.cache.Get(ctx, a.o.Scope)
	if err != nil {
		return nil, fmt.Errorf("agent %s: %w", a.o.Scope.AgentName, err)
	}
	out, err := v.GetCommand(ctx, req)
	if err != nil {
		return nil, err
	}
	in := &Input{Messages: make([]Message, 0, len(out.Messages))}
	var prompt []string
	for _, m := range out.Messages {
		role := RoleUser
		if m.Role == ext.RoleAssistant {
			role = RoleAssistant
		}
		in.Messages = append(in.Messages, Message{Role: role, Content: []ext.Content{m.Content}})
		if role == RoleUser && m.Content.Type == ext.ContentText {
			prompt = append(prompt, m.Content.Text)
		}
	}
	if len(in.Messages) == 0 {
		return nil, fmt.Errorf("command /%s: expanded to no messages", strings.TrimPrefix(req.Name, "/"))
	}
	in.Prompt = strings.Join(prompt, "\n")
	return in, nil
}

package chat

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentpool/agentpool/agent"
)

// agentOwn is the origin's location of the agent's own tools (read_resource, list_resources,
// delegate): they are not the view's, yet the model is offered them.
const agentOwn = "agent"

// Greet prints the chat's first line as a notice: who the chat is with (the model, its
// endpoint, the scope), then how many tools the model is offered (the agent's own with the
// view's, as Agent.Offered counts them), the view's commands and skills, and the keys.
func (c *Chat) Greet(ctx context.Context, who string) error {
	v, err := c.cache.Get(ctx, c.scope)
	if err != nil {
		return err
	}
	defs, err := c.agent.Offered(ctx)
	if err != nil {
		return err
	}
	c.p.Notice("agentpool chat: %s: %d tools, %d commands, %d skills; /help, /exit; Ctrl-C interrupts a turn",
		who, len(defs), len(v.Commands), len(v.Skills))
	return nil
}

// toolsLine says how many tools the model is offered and which are the agent's own.
func toolsLine(defs []agent.ToolDef) string {
	var own []string
	for _, d := range defs {
		if d.Origin.Location == agentOwn {
			own = append(own, d.Name)
		}
	}
	s := fmt.Sprintf("the model is offered %d tools: %d of the view", len(defs), len(defs)-len(own))
	if len(own) > 0 {
		s += fmt.Sprintf(", %d of the agent (%s)", len(own), strings.Join(own, ", "))
	}
	return s
}

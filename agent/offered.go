package agent

import (
	"context"
	"fmt"

	"github.com/agentpool/agentpool/view"
)

// Offered returns the tools the agent's next run offers the model at its first step, as the
// run computes them: the view's (Options.Tools decides which), then the agent's own
// (read_resource, list_resources, delegate). A UI counts and lists these, so it shows what the
// model sees. Turn capabilities of a run are not among them.
func (a *Agent) Offered(ctx context.Context) ([]ToolDef, error) {
	v, err := a.cache.Get(ctx, a.o.Scope)
	if err != nil {
		return nil, fmt.Errorf("agent %s: %w", a.o.Scope.AgentName, err)
	}
	defs, _, _ := a.offer(v)
	return defs, nil
}

// offer returns the tools a step on v offers, the agent's own by name, and the problems of a
// view tool not offered because an agent tool has its name.
func (a *Agent) offer(v *view.View) (defs []ToolDef, own map[string]ownTool, problems []string) {
	mine := a.ownTools()
	own = make(map[string]ownTool, len(mine))
	for _, t := range mine {
		own[t.def.Name] = t
	}
	tools := a.exp.Tools(v)
	defs = make([]ToolDef, 0, len(tools)+len(mine))
	for _, t := range tools {
		if _, taken := own[t.Name]; taken {
			problems = append(problems, fmt.Sprintf("%s: tool %s: not offered: the agent's own tool has that name", t.Capability, t.Name))
			continue
		}
		defs = append(defs, ToolDefOf(t))
	}
	for _, t := range mine {
		defs = append(defs, t.def)
	}
	return defs, own, problems
}

package view

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/agentpool/agentpool/ext"
)

// assembleTools names every tool once. A capability lists its tools under their final names
// (ext.ToolName: an upstream server's as "<server>__<tool>" unless configured otherwise, a
// skill's own servers' as "<skill>__<tool>"). When two capabilities list the same name, the
// one that precedes (origin, then narrowest scope, then Visible order) keeps it; the other is
// renamed "<capability>__<name>" and the collision reported. If that name is taken as well,
// the loser is left out and the collision says so. A capability that lists a name twice
// offers its first entry only. Then keep (Options.Tools), when set, drops the names it refuses.
func (v *View) assembleTools(members []member, keep func(string) bool) {
	type cand struct {
		m *member
		e ext.ToolEntry
	}
	var all []cand
	for i := range members {
		m := &members[i]
		for _, e := range m.tools {
			all = append(all, cand{m, e})
		}
	}
	slices.SortStableFunc(all, func(a, b cand) int { return precedes(a.m, b.m) })
	v.tools = make(map[string]*Tool, len(all))
	var losers []cand
	for _, c := range all {
		if w, taken := v.tools[c.e.Name]; taken {
			if w.provider != c.m.reg.Capability.(ext.ToolProvider) {
				losers = append(losers, c) // a capability listing a name twice offers it once
			}
			continue
		}
		v.tools[c.e.Name] = newTool(c.m, c.e, c.e.Name)
	}
	for _, c := range losers {
		w := v.tools[c.e.Name]
		col := Collision{Kind: "tool", Name: c.e.Name,
			Winner: Claim{Capability: w.Capability, Origin: w.Origin, ReachableAs: w.Name}}
		alt := ext.ToolName(c.m.reg.Capability.Name(), c.e.Name)
		if _, taken := v.tools[alt]; taken {
			alt = ""
		} else {
			v.tools[alt] = newTool(c.m, c.e, alt)
		}
		col.Loser = claim(c.m, alt)
		v.Collisions = append(v.Collisions, col)
	}
	if keep != nil {
		for name := range v.tools {
			if !keep(name) {
				delete(v.tools, name)
			}
		}
	}
	v.Tools = make([]Tool, 0, len(v.tools))
	for _, t := range v.tools {
		v.Tools = append(v.Tools, *t)
	}
	slices.SortFunc(v.Tools, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
}

func newTool(m *member, e ext.ToolEntry, name string) *Tool {
	local := e.Name
	e.Name = name
	return &Tool{Name: name, Entry: e, Capability: m.reg.Capability.Name(), Origin: m.reg.Origin,
		Level: m.reg.Level.String(), local: local, provider: m.reg.Capability.(ext.ToolProvider)}
}

// Tool returns the tool called name.
func (v *View) Tool(name string) (Tool, bool) {
	t, ok := v.tools[name]
	if !ok {
		return Tool{}, false
	}
	return *t, true
}

// Route returns the capability that serves the tool called name and the name that capability
// knows it by. An unknown name is ext.ErrNotFound.
func (v *View) Route(name string) (ext.ToolProvider, string, error) {
	t, ok := v.tools[name]
	if !ok {
		return nil, "", fmt.Errorf("tool %q: %w", name, ext.ErrNotFound)
	}
	return t.provider, t.local, nil
}

// CallTool calls the tool call.Name of the view: the call goes to the capability that serves
// it, under the name that capability knows, with call's arguments, _meta and progress sink.
func (v *View) CallTool(ctx context.Context, call *ext.ToolCall) (*ext.ToolResult, error) {
	p, local, err := v.Route(call.Name)
	if err != nil {
		return nil, err
	}
	forward := *call
	forward.Name = local
	return p.CallTool(ctx, &forward)
}

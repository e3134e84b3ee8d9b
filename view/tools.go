package view

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/agentpool/agentpool/ext"
)

// assembleTools names every tool once. A capability lists its tools under qualified names
// (ext.ToolName: an upstream server's as "<server>__<tool>" unless configured otherwise, a
// skill's own servers' as "<skill>__<tool>"). A name under a server's namespace (namespace:
// "<server>__…", or its prefix when it has one) belongs to that server: another server that
// lists it (one with prefix "") does not take it, whatever the precedence. Otherwise, when two capabilities list the same name, the one that precedes
// (origin, then narrowest scope, then Visible order) keeps it. Each loser is renamed
// "<capability>__<name>" and the collision reported; if that name is taken as well, the loser
// is left out and the collision says so. A capability that lists a name twice offers its first
// entry only. Then every qualified name gets its served name (servedNames), and keep
// (Options.Tools), when set, drops the served names it refuses.
func (v *View) assembleTools(members []member, keep func(...string) bool) {
	type cand struct {
		m     *member
		e     ext.ToolEntry
		owner *member // the server whose name e.Name is under, when another server lists it
		owned string  // the owner's qualified name e.Name stands for
	}
	var all []cand
	for i := range members {
		m := &members[i]
		for _, e := range m.tools {
			all = append(all, cand{m: m, e: e})
		}
	}
	slices.SortStableFunc(all, func(a, b cand) int { return precedes(a.m, b.m) })
	owners, served := namespaceOwners(members), servedOwners(members)
	byName := make(map[string]*Tool, len(all))
	var losers []cand
	for _, c := range all {
		if c.owner, c.owned = intrudes(owners, served, c.m, c.e.Name); c.owner != nil {
			losers = append(losers, c)
			continue
		}
		if w, taken := byName[c.e.Name]; taken {
			if w.provider != c.m.reg.Capability.(ext.ToolProvider) {
				losers = append(losers, c) // a capability listing a name twice offers it once
			}
			continue
		}
		byName[c.e.Name] = newTool(c.m, c.e, c.e.Name)
	}
	// reach holds, per collision, the tools its winner and loser are reachable as (nil: not
	// reachable), named once every qualified name has its served name.
	base, reach := len(v.Collisions), make([][2]*Tool, 0, len(losers))
	for _, c := range losers {
		col := Collision{Kind: "tool", Name: c.e.Name}
		w := byName[cmp.Or(c.owned, c.e.Name)]
		switch {
		case c.owner == nil:
			col.Winner = Claim{Capability: w.Capability, Origin: w.Origin}
		case w != nil && w.provider == c.owner.reg.Capability.(ext.ToolProvider):
			col.Winner = claim(c.owner, "")
		default:
			col.Winner, w = claim(c.owner, ""), nil
		}
		alt := ext.ToolName(c.m.reg.Capability.Name(), c.e.Name)
		var l *Tool
		if _, taken := byName[alt]; !taken {
			l = newTool(c.m, c.e, alt)
			byName[alt] = l
		}
		col.Loser = claim(c.m, "")
		v.Collisions = append(v.Collisions, col)
		reach = append(reach, [2]*Tool{w, l})
	}
	v.nameTools(byName, keep)
	for i, r := range reach {
		if r[0] != nil {
			v.Collisions[base+i].Winner.ReachableAs = r[0].Name
		}
		if r[1] != nil {
			v.Collisions[base+i].Loser.ReachableAs = r[1].Name
		}
	}
}

// nameTools gives every tool of byName (by qualified name) its served name, and sets
// v.tools and v.Tools to the tools keep accepts, given their served and qualified names.
func (v *View) nameTools(byName map[string]*Tool, keep func(...string) bool) {
	qualified := make([]string, 0, len(byName))
	for q := range byName {
		qualified = append(qualified, q)
	}
	served := servedNames(qualified)
	v.Tools = make([]Tool, 0, len(byName))
	for q, t := range byName {
		name := served[q]
		if keep != nil && !keep(tokeep(name, q)...) {
			continue
		}
		if name != q {
			t.Qualified = q
		}
		t.Name, t.Entry.Name = name, name
		v.Tools = append(v.Tools, *t)
	}
	slices.SortFunc(v.Tools, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	// The map points into the list: a view, held by every session, holds each tool once.
	v.tools = make(map[string]*Tool, len(v.Tools))
	for i := range v.Tools {
		v.tools[v.Tools[i].Name] = &v.Tools[i]
	}
}

// tokeep is what a tool filter is given: the served name, and the qualified one when it
// differs.
func tokeep(served, qualified string) []string {
	if served == qualified {
		return []string{served}
	}
	return []string{served, qualified}
}

// toolPrefixer is a server capability that lists its tools under a prefix (mcpcap.Cap).
type toolPrefixer interface{ ToolPrefix() string }

// namespace is the prefix m's tool names carry, which m owns: its ToolPrefix ("" for none, a
// server with prefix ""), or "<name>__" for a capability that does not say.
func namespace(m *member) string {
	if p, ok := m.reg.Capability.(toolPrefixer); ok {
		return p.ToolPrefix()
	}
	return m.reg.Capability.Name() + ext.ToolSep
}

// namespaceOwners maps each visible server's namespace, and that namespace as ServedName's
// characters would write it, to the server that precedes among those of that namespace. Only
// remote capabilities own a namespace: a local one (a skill's servers) lists
// "<skill>__<tool>".
func namespaceOwners(members []member) map[string]*member {
	owners := map[string]*member{}
	for i := range members {
		m := &members[i]
		ns := namespace(m)
		if !m.reg.Origin.Remote() || ns == "" {
			continue
		}
		for _, n := range []string{ns, sanitize(ns)} {
			if o, ok := owners[n]; !ok || precedes(m, o) < 0 {
				owners[n] = m
			}
		}
	}
	return owners
}

// ownedName is a server's tool as the name ServedName gives it claims it: the server, and the
// qualified name it lists.
type ownedName struct {
	m         *member
	qualified string
}

// servedOwners maps the served name of each tool a visible server lists under its namespace
// ("<server>__<tool>", or its prefix) that ServedName changes — a long name's hashed form, which names no
// namespace — to that server and tool, the server that precedes where two meet.
func servedOwners(members []member) map[string]ownedName {
	owned := map[string]ownedName{}
	for i := range members {
		m := &members[i]
		ns := namespace(m)
		if !m.reg.Origin.Remote() || ns == "" {
			continue
		}
		for _, e := range m.tools {
			if ValidToolName(e.Name) || !strings.HasPrefix(e.Name, ns) {
				continue
			}
			s := ServedName(e.Name)
			if o, ok := owned[s]; !ok || precedes(m, o.m) < 0 {
				owned[s] = ownedName{m, e.Name}
			}
		}
	}
	return owned
}

// intrudes returns the server that owns name when m is another remote capability (of another
// name) that lists it: name is under the owner's namespace (as the owner writes it or as
// ServedName does; the longest such namespace, so "ghost__…" is ghost's even beside a prefix
// "gh"), or the served name of a tool the owner lists under its namespace (with that tool's
// qualified name), and not under a namespace of m's own as long. Only servers are held to it;
// a local capability keeps the precedence rule.
func intrudes(owners map[string]*member, served map[string]ownedName, m *member, name string) (*member, string) {
	if len(owners) == 0 || !m.reg.Origin.Remote() {
		return nil, ""
	}
	self := m.reg.Capability.Name()
	longest := 0
	if own := namespace(m); own != "" && strings.HasPrefix(name, own) {
		longest = len(own)
	} else if o, ok := served[name]; ok && o.m.reg.Capability.Name() != self {
		return o.m, o.qualified
	}
	var owner *member
	for ns, o := range owners {
		if len(ns) > longest && len(ns) < len(name) && strings.HasPrefix(name, ns) && o.reg.Capability.Name() != self {
			owner, longest = o, len(ns)
		}
	}
	return owner, ""
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
		return nil, "", v.notFound(name)
	}
	return t.provider, t.local, nil
}

// notFound is the error of a tool name the view does not list: ext.ErrNotFound, with the
// reason a capability keeps a tool of that name out when one does (Blocked).
func (v *View) notFound(name string) error {
	if err := v.Blocked(name); err != nil {
		return err
	}
	return fmt.Errorf("tool %q: %w", name, ext.ErrNotFound)
}

// Blocked returns why a capability keeps the tool name out of the view (ext.ToolBlocker),
// wrapping ext.ErrNotFound; nil when the view lists name or no capability keeps it out.
func (v *View) Blocked(name string) error {
	if _, ok := v.tools[name]; ok {
		return nil
	}
	for _, m := range v.caps {
		if b, ok := m.reg.Capability.(ext.ToolBlocker); ok {
			if err := b.BlockedTool(name); err != nil {
				return fmt.Errorf("tool %q: %w: %w", name, ext.ErrNotFound, err)
			}
		}
	}
	return nil
}

// BlockedCommand returns why a capability keeps the command name out of the view
// (ext.CommandBlocker), wrapping ext.ErrNotFound; nil when the view lists name or no
// capability keeps it out.
func (v *View) BlockedCommand(name string) error {
	if _, ok := v.Command(name); ok {
		return nil
	}
	for _, m := range v.caps {
		if b, ok := m.reg.Capability.(ext.CommandBlocker); ok {
			if err := b.BlockedCommand(name); err != nil {
				return fmt.Errorf("command %q: %w: %w", name, ext.ErrNotFound, err)
			}
		}
	}
	return nil
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

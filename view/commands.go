package view

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agentpool/agentpool/ext"
)

// Command sources, as ext.CommandEntry.Source names them.
const (
	SourceFile  = "file"
	SourceSkill = "skill"
	SourceMCP   = "mcp"
)

// sourceRank orders command sources for precedence: command files, then skills, then MCP
// prompts, then anything else.
func sourceRank(source string) int {
	switch source {
	case SourceFile:
		return 0
	case SourceSkill:
		return 1
	case SourceMCP:
		return 2
	}
	return 3
}

// qualifiedName is the name that reaches e even when it is shadowed: its QualifiedName, else
// "<source>:<name>", else "<capability>:<name>".
func qualifiedName(e ext.CommandEntry, capability string) string {
	switch {
	case e.QualifiedName != "":
		return e.QualifiedName
	case e.Source != "":
		return e.Source + ":" + e.Name
	}
	return capability + ":" + e.Name
}

// assembleCommands merges every source's commands. When two offer the same name, the winner
// is chosen by origin (the user's own, a project's, remote), then by entry source (command
// files, skills, MCP prompts, others), then by Visible order, then by order within a source.
// The winner is listed under the name. Every command is also reached by its qualified name,
// unless a command that precedes already holds that name (as a name or as its own qualified
// name): two sources of one kind qualify alike ("file:review" from the user's and a project's
// command files). Each loser is reported as a Collision and listed under the name that reaches
// it: its qualified name when it holds it, else "<capability>:<qualified name>", else none (the
// loser is left out and the collision says so).
func (v *View) assembleCommands(members []member) {
	type cand struct {
		m   *member
		e   ext.CommandEntry
		pos int
	}
	var all []cand
	for i := range members {
		m := &members[i]
		for j, e := range m.cmds {
			all = append(all, cand{m, e, j})
		}
	}
	slices.SortStableFunc(all, func(a, b cand) int {
		return cmp.Or(
			cmp.Compare(a.m.reg.Origin.Rank(), b.m.reg.Origin.Rank()),
			cmp.Compare(sourceRank(a.e.Source), sourceRank(b.e.Source)),
			cmp.Compare(a.m.rank, b.m.rank),
			cmp.Compare(a.pos, b.pos),
		)
	})
	winners := make(map[string]*Command, len(all))
	ordered := make([]*Command, 0, len(all)) // every command, in precedence order
	var losers []*Command
	for _, c := range all {
		capName := c.m.reg.Capability.Name()
		cmd := &Command{CommandEntry: c.e, Capability: capName, Origin: c.m.reg.Origin,
			local: c.e.Name, source: c.m.reg.Capability.(ext.CommandResource)}
		if w, ok := winners[c.e.Name]; ok {
			if w.source != cmd.source { // a capability listing a name twice offers it once
				ordered = append(ordered, cmd)
				losers = append(losers, cmd)
			}
			continue
		}
		ordered = append(ordered, cmd)
		winners[c.e.Name] = cmd
	}
	// A plain name beats a qualified one; a qualified name goes to the first command, in
	// precedence order, that claims it; a loser without one gets "<capability>:<qualified>".
	v.commands = make(map[string]*Command, len(winners)+len(all))
	for n, c := range winners {
		v.commands[n] = c
	}
	for _, c := range ordered {
		if q := qualifiedName(c.CommandEntry, c.Capability); v.commands[q] == nil {
			v.commands[q] = c
		}
	}
	v.Commands = make([]Command, 0, len(winners)+len(losers))
	for _, c := range winners {
		v.Commands = append(v.Commands, *c)
	}
	for _, c := range losers {
		q := qualifiedName(c.CommandEntry, c.Capability)
		reach := ""
		if v.commands[q] == c {
			reach = q
		} else if alt := c.Capability + ":" + q; v.commands[alt] == nil {
			reach = alt
			v.commands[alt] = c
		}
		if reach != "" {
			shown := *c
			shown.Name = reach
			v.Commands = append(v.Commands, shown)
		}
		w := winners[c.Name]
		v.Collisions = append(v.Collisions, Collision{Kind: "command", Name: c.Name,
			Winner: Claim{Capability: w.Capability, Origin: w.Origin, ReachableAs: w.Name, Path: w.Path},
			Loser:  Claim{Capability: c.Capability, Origin: c.Origin, ReachableAs: reach, Path: c.Path}})
	}
	slices.SortFunc(v.Commands, func(a, b Command) int { return strings.Compare(a.Name, b.Name) })
}

// Command returns the command called name: a listed name, or any command's qualified name
// ("file:review", "skill:pdf", "everything:simple-prompt"), with or without a leading "/".
func (v *View) Command(name string) (Command, bool) {
	c, ok := v.commands[strings.TrimPrefix(name, "/")]
	if !ok {
		return Command{}, false
	}
	return *c, true
}

// GetCommand expands the command req.Name (see Command) with req's arguments, by the source
// that owns it, which receives the name it knows. An unknown command is ext.ErrNotFound, with
// the reason a capability keeps a command of that name out when one does (BlockedCommand),
// else joined with the listing problems of any command source (the command may live in one
// that failed).
func (v *View) GetCommand(ctx context.Context, req *ext.CommandRequest) (*ext.PromptResult, error) {
	name := strings.TrimPrefix(req.Name, "/")
	c, ok := v.commands[name]
	if !ok {
		if err := v.BlockedCommand(name); err != nil {
			return nil, err
		}
		var errs []error
		for _, p := range v.Problems {
			if p.What == "commands" || p.What == "capability" {
				errs = append(errs, errors.New(p.String()))
			}
		}
		return nil, errors.Join(append([]error{fmt.Errorf("command /%s: %w", name, ext.ErrNotFound)}, errs...)...)
	}
	forward := *req
	forward.Name = c.local
	out, err := c.source.GetCommand(ctx, &forward)
	if err != nil {
		return nil, fmt.Errorf("command /%s from %s: %w", name, c.Capability, err)
	}
	return out, nil
}

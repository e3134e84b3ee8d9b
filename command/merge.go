package command

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agentpool/agentpool/cmdline"
	"github.com/agentpool/agentpool/ext"
)

// Sources of a CommandEntry, as ext.CommandEntry.Source names them. SourceFile is in filesource.go.
const (
	SourceSkill = "skill"
	SourceMCP   = "mcp"
)

// Collision reports two commands offering the same Name: Winner keeps the name, Loser stays
// reachable by its qualified name.
type Collision struct {
	Name   string           `json:"name"`
	Winner ext.CommandEntry `json:"winner"`
	Loser  ext.CommandEntry `json:"loser"`
}

func (c Collision) String() string {
	return fmt.Sprintf("command /%s from %s shadows %s (reachable as /%s)",
		c.Name, describe(c.Winner), describe(c.Loser), qualified(c.Loser, -1))
}

func describe(e ext.CommandEntry) string {
	s := cmp.Or(e.Source, "unknown source")
	if e.Path != "" {
		s += " " + e.Path
	}
	return s
}

// sourceRank orders sources for precedence: files, then skills, then MCP prompts, then anything
// else (an entry with no or an unknown Source).
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

// qualified returns the name that reaches e even when it is shadowed: its QualifiedName, else
// "<source>:<name>", else (no source either) "source<i>:<name>" using its source's position.
func qualified(e ext.CommandEntry, src int) string {
	switch {
	case e.QualifiedName != "":
		return e.QualifiedName
	case e.Source != "":
		return e.Source + ":" + e.Name
	case src >= 0:
		return fmt.Sprintf("source%d:%s", src, e.Name)
	}
	return e.Name
}

// candidate is one entry of one source, with what decides precedence.
type candidate struct {
	entry ext.CommandEntry
	src   int // index in sources
	pos   int // index in that source's listing
}

func (c candidate) less(d candidate) int {
	return cmp.Or(
		cmp.Compare(sourceRank(c.entry.Source), sourceRank(d.entry.Source)),
		cmp.Compare(c.src, d.src),
		cmp.Compare(c.pos, d.pos),
	)
}

// table is the merged view of every source's commands.
type table struct {
	winners    map[string]candidate // by Name
	byQualName map[string]candidate // every entry by its qualified name (first one wins)
	collisions []Collision
}

// merge lists every source and resolves names. Sources that fail are skipped; their errors are
// returned joined.
func merge(ctx context.Context, sources []ext.CommandResource) (*table, error) {
	var all []candidate
	var errs []error
	for i, src := range sources {
		entries, err := src.ListCommands(ctx)
		if err != nil {
			errs = append(errs, fmt.Errorf("list commands of %s: %w", sourceName(src, i), err))
			continue
		}
		for j, e := range entries {
			all = append(all, candidate{entry: e, src: i, pos: j})
		}
	}
	slices.SortStableFunc(all, candidate.less)
	t := &table{winners: make(map[string]candidate), byQualName: make(map[string]candidate)}
	for _, c := range all {
		if q := qualified(c.entry, c.src); q != "" {
			if _, ok := t.byQualName[q]; !ok {
				t.byQualName[q] = c
			}
		}
		w, ok := t.winners[c.entry.Name]
		if !ok {
			t.winners[c.entry.Name] = c
			continue
		}
		t.collisions = append(t.collisions, Collision{Name: c.entry.Name, Winner: w.entry, Loser: c.entry})
	}
	slices.SortStableFunc(t.collisions, func(a, b Collision) int { return strings.Compare(a.Name, b.Name) })
	return t, errors.Join(errs...)
}

func sourceName(src ext.CommandResource, i int) string {
	if n, ok := src.(interface{ Name() string }); ok {
		return fmt.Sprintf("source %d (%s)", i, n.Name())
	}
	return fmt.Sprintf("source %d (%T)", i, src)
}

// List merges the commands of sources. When two sources offer the same Name, the winner is
// chosen by entry Source — "file" before "skill" before "mcp" before anything else — then by the
// order of sources, then by the order within a source. The winner is listed under Name; each loser
// is reported as a Collision and listed under its qualified name (its QualifiedName, or
// "<source>:<name>" when it has none), so that typing it reaches the loser. The result is sorted by
// Name.
//
// A source that fails to list does not hide the others: its error is returned (joined with any
// other) together with everything the remaining sources listed.
func List(ctx context.Context, sources []ext.CommandResource) ([]ext.CommandEntry, []Collision, error) {
	t, err := merge(ctx, sources)
	out := make([]ext.CommandEntry, 0, len(t.winners))
	listed := make(map[string]bool, len(t.winners))
	for name, w := range t.winners {
		out = append(out, w.entry)
		listed[name] = true
	}
	for _, c := range t.collisions {
		loser := c.Loser
		q := qualified(loser, -1)
		if listed[q] {
			continue // the qualified name is itself some command's name; Run still prefers that one
		}
		loser.Name = q
		listed[q] = true
		out = append(out, loser)
	}
	slices.SortFunc(out, func(a, b ext.CommandEntry) int { return strings.Compare(a.Name, b.Name) })
	return out, t.collisions, err
}

// Run parses a command line ("/name args…", see cmdline.ParseLine), finds the command among sources, and
// returns its expansion by the owning source's GetCommand. The name is matched first against the
// merged Names (the winners of List), then against every command's qualified name, so
// "/file:review" or "/skill:pdf" reach a shadowed command. An unknown command is ext.ErrNotFound
// naming it, joined with any source's listing error (the command may live in a source that
// failed). The owning source receives the command's plain Name.
func Run(ctx context.Context, sources []ext.CommandResource, line string) (string, error) {
	name, args, _, err := cmdline.ParseLine(line)
	if err != nil {
		return "", err
	}
	t, listErr := merge(ctx, sources)
	c, ok := t.winners[name]
	if !ok {
		c, ok = t.byQualName[name]
	}
	if !ok {
		return "", errors.Join(fmt.Errorf("command /%s: %w", name, ext.ErrNotFound), listErr)
	}
	out, err := sources[c.src].GetCommand(ctx, c.entry.Name, args)
	if err != nil {
		return "", fmt.Errorf("command /%s from %s: %w", name, sourceName(sources[c.src], c.src), err)
	}
	return out, nil
}

package skill

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentpool/agentpool/cmdline"
	"github.com/agentpool/agentpool/ext"
)

// commandPrefix qualifies a skill's command name: "skill:<name>".
const commandPrefix = "skill:"

// ListCommands lists one command per skill that is user-invocable (frontmatter
// `user-invocable` not false), sorted by name: Name the skill name, QualifiedName
// "skill:<name>", Source "skill", ArgumentHint from `argument-hint`, Path the SKILL.md.
func (m *Manager) ListCommands(ctx context.Context) ([]ext.CommandEntry, error) {
	if err := m.check(ctx); err != nil {
		return nil, err
	}
	return commandEntries(m.state.Load().skills), nil
}

func commandEntries(skills []*Skill) []ext.CommandEntry {
	var out []ext.CommandEntry
	for _, s := range skills {
		if !s.UserInvocable {
			continue
		}
		out = append(out, ext.CommandEntry{Name: s.Name, QualifiedName: commandPrefix + s.Name,
			Description: s.Description, ArgumentHint: s.ArgumentHint, Source: "skill", Path: s.Path})
	}
	return out
}

// GetCommand returns the command of skill req.Name ("<name>" or "skill:<name>"; a skill's name
// first, so "skill:x" is the skill of namespace "skill" named x when there is one) as one user
// message built from its SKILL.md body. A skill whose frontmatter declares `arguments` or
// `argument-hint`, or whose body uses $ARGUMENTS, is a template: cmdline.ExpandTemplate
// substitutes its placeholders. Any other body is never rewritten — real skills hold prices like
// $10.00 and shell snippets like awk '{print $1}' — and gets "User arguments: …" appended when
// there are arguments (cmdline.AppendArguments). Without positional Args, Named["arguments"] is
// split shell-style. An unknown or non-user-invocable skill is ErrNotFound.
func (m *Manager) GetCommand(ctx context.Context, req *ext.CommandRequest) (*ext.PromptResult, error) {
	if err := m.check(ctx); err != nil {
		return nil, err
	}
	name := req.Name
	// A name first: a skill of namespace "skill" is "skill:<name>", which is also the
	// qualified form of the bare <name>; the listed name wins, as in a view.
	byName := m.state.Load().byName
	s := byName[name]
	if s == nil {
		s = byName[strings.TrimPrefix(name, commandPrefix)]
	}
	if s == nil || !s.UserInvocable {
		return nil, fmt.Errorf("skill manager %q: command %q: %w", m.name, name, ext.ErrNotFound)
	}
	args := req.Args
	if args == nil && req.Named["arguments"] != "" {
		var err error
		if args, err = cmdline.Split(req.Named["arguments"]); err != nil {
			return nil, fmt.Errorf("skill manager %q: command %q: %w", m.name, name, err)
		}
	}
	body, err := s.Body()
	if err != nil {
		return nil, err
	}
	out := ext.UserPrompt(expandBody(s, body, args))
	out.Description = s.Description
	return out, nil
}

// expandBody expands body as a template when s is one, and otherwise only appends the arguments.
func expandBody(s *Skill, body string, args []string) string {
	if s.DeclaresArguments || cmdline.UsesArguments(body) {
		return cmdline.ExpandTemplate(body, args)
	}
	return cmdline.AppendArguments(body, args)
}

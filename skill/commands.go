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

// GetCommand expands the command of skill req.Name ("<name>" or "skill:<name>"): its SKILL.md
// body with $ARGUMENTS, $1... replaced, or with "User arguments: ..." appended when the body
// has no placeholder (cmdline.ExpandTemplate), as one user message. Without positional Args,
// Named["arguments"] is split shell-style. An unknown or non-user-invocable skill is
// ErrNotFound.
func (m *Manager) GetCommand(ctx context.Context, req *ext.CommandRequest) (*ext.PromptResult, error) {
	if err := m.check(ctx); err != nil {
		return nil, err
	}
	name := req.Name
	s := m.state.Load().byName[strings.TrimPrefix(name, commandPrefix)]
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
	out := ext.UserPrompt(cmdline.ExpandTemplate(body, args))
	out.Description = s.Description
	return out, nil
}

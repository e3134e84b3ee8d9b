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

// GetCommand expands the command of skill name ("<name>" or "skill:<name>"): its SKILL.md body
// with $ARGUMENTS, $1... replaced, or with "User arguments: ..." appended when the body has no
// placeholder (cmdline.ExpandSkill). An unknown or non-user-invocable skill is ErrNotFound.
func (m *Manager) GetCommand(ctx context.Context, name string, args []string) (string, error) {
	if err := m.check(ctx); err != nil {
		return "", err
	}
	s := m.state.Load().byName[strings.TrimPrefix(name, commandPrefix)]
	if s == nil || !s.UserInvocable {
		return "", fmt.Errorf("skill manager %q: command %q: %w", m.name, name, ext.ErrNotFound)
	}
	body, err := s.Body()
	if err != nil {
		return "", err
	}
	return cmdline.ExpandSkill(body, args), nil
}

package config

import (
	"testing"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/skill"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func skillDecl(command string) skill.ServerDecl {
	return skill.ServerDecl{Name: "tool", Type: "stdio", Command: command, Source: "SKILL.md", Line: 4}
}

// tracksSkillChild reports whether c is a skill server still recorded as a registry child.
func (h *Host) tracksSkillChild(c ext.Capability) bool {
	h.kidsMu.Lock()
	defer h.kidsMu.Unlock()
	for _, k := range h.skillKids {
		if k.cap == c {
			return true
		}
	}
	return false
}

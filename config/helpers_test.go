package config

import (
	"errors"
	"testing"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/skill"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func skillDecl(command string) skill.ServerDecl {
	return skill.ServerDecl{Name: "tool", Type: "stdio", Command: command, Source: "SKILL.md", Line: 4}
}

// recordedChild reports whether c is recorded in the registry as a child of the skill manager,
// without changing the graph: the reverse edge c → manager is refused as a cycle exactly when the
// edge manager → c exists (and refused as an unknown parent when c is not in the graph at all).
func (h *Host) recordedChild(c ext.Capability) bool {
	return errors.Is(h.Registry.AddChild(c, h.Skills), ext.ErrCircularComposition)
}

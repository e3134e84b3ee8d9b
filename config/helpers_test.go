package config

import (
	"testing"

	"github.com/agentpool/agentpool/skill"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func skillDecl(command string) skill.ServerDecl {
	return skill.ServerDecl{Name: "tool", Type: "stdio", Command: command, Source: "SKILL.md", Line: 4}
}

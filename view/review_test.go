package view_test

import (
	"context"
	"testing"

	"github.com/agentpool/agentpool/ext"
	"github.com/google/go-cmp/cmp"
)

// The same capability value registered at pool and in a session (ext allows it) is one
// source in the session's view: its tools, commands, skills and instructions appear once and
// collide with nothing, and it is asked once.
func TestCapabilityInSeveralSlotsCountsOnce(t *testing.T) {
	r := newRegistry(t)
	f := newFake("srv", ext.OriginRemote, "srv__x")
	f.cmds = []ext.CommandEntry{{Name: "p", QualifiedName: "srv:p", Source: "mcp"}}
	f.skills = []ext.SkillEntry{{Name: "pdf", URI: "skill://pdf/SKILL.md"}}
	f.static = "use srv"
	register(t, r, f, ext.LevelPool, ext.Scope{})
	register(t, r, f, ext.LevelSession, ext.Scope{SessionID: "s"})
	v := compile(t, r, ext.Scope{SessionID: "s"})
	if diff := cmp.Diff([]string{"srv__x"}, toolNames(v)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if len(v.Commands) != 1 || len(v.Skills) != 1 {
		t.Errorf("commands = %+v, skills = %+v; want one each", v.Commands, v.Skills)
	}
	if len(v.Collisions) != 0 {
		t.Errorf("collisions = %+v; want none (one capability)", v.Collisions)
	}
	want := "<instructions from=\"mcp://srv\">\nuse srv\n</instructions>"
	if v.Instructions.Static != want {
		t.Errorf("static = %q, want %q", v.Instructions.Static, want)
	}
	if n := f.lists.Load(); n != 1 {
		t.Errorf("Tools asked %d times, want 1", n)
	}
	if v.Tools[0].Level != ext.LevelSession.String() {
		t.Errorf("level = %s, want the narrowest registration's", v.Tools[0].Level)
	}
	if _, err := v.CallTool(context.Background(), &ext.ToolCall{Name: "srv__x"}); err != nil {
		t.Error(err)
	}
}

package view_test

import (
	"context"
	"testing"

	"github.com/agentpool/agentpool/ext"
)

// TestSkillsAgreeWithResolveURI: whoever the view's Skills list names as a skill's source is
// the source ResolveURI reads the skill from, for every kind of contest.
func TestSkillsAgreeWithResolveURI(t *testing.T) {
	withPDF := func(name string, origin ext.OriginKind) *fakeCap {
		f := newFake(name, origin)
		f.skills = []ext.SkillEntry{{Name: "pdf", URI: "skill://pdf/SKILL.md"}}
		return f
	}
	turn := ext.Scope{SessionID: "s", AgentName: "a", TurnID: "t"}
	type reg struct {
		c     *fakeCap
		level ext.ScopeLevel
		slot  ext.Scope
	}
	for name, tc := range map[string]struct {
		regs []reg
		want string
	}{
		"narrower scope": {[]reg{
			{withPDF("pool", ext.OriginLocal), ext.LevelPool, ext.Scope{}},
			{withPDF("sess", ext.OriginLocal), ext.LevelSession, ext.Scope{SessionID: "s"}},
		}, "sess"},
		"origin before scope": {[]reg{
			{withPDF("mine", ext.OriginLocal), ext.LevelPool, ext.Scope{}},
			{withPDF("proj", ext.OriginProject), ext.LevelTurn, turn},
			{withPDF("srv", ext.OriginRemote), ext.LevelTurn, turn},
		}, "mine"},
		"two servers": {[]reg{
			{withPDF("first", ext.OriginRemote), ext.LevelSession, ext.Scope{SessionID: "s"}},
			{withPDF("second", ext.OriginRemote), ext.LevelSession, ext.Scope{SessionID: "s"}},
		}, "first"},
	} {
		t.Run(name, func(t *testing.T) {
			r := newRegistry(t)
			for _, g := range tc.regs {
				register(t, r, g.c, g.level, g.slot)
			}
			v := compile(t, r, turn)
			if len(v.Skills) != 1 || v.Skills[0].Capability != tc.want {
				t.Fatalf("Skills = %+v; want pdf from %q", v.Skills, tc.want)
			}
			out, err := v.ReadResource(context.Background(), "skill://pdf/SKILL.md")
			if err != nil || len(out) != 1 || out[0].Text != tc.want {
				t.Fatalf("ReadResource = %+v, %v; want the skill from %q", out, err, tc.want)
			}
		})
	}
}

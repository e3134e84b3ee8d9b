package host

import (
	"testing"

	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/pin"
	"github.com/agentpool/agentpool/skill"
)

// A trusted project's skill's own server is a project server: unless the user's config sets
// pins, it is pinned under block, as the project's declared servers are; the user's own
// skills' servers under warn.
func TestSkillServerPinsDefaultByOwner(t *testing.T) {
	st := &State{Config: &config.Config{}}
	d := skill.ServerDecl{Name: "mail", Server: decl.Server{Command: "mail"}}
	d.Source = "/p/.agents/skills/mailer/SKILL.md"
	if got := skillPinsOf(st, d, true).Mode; got != pin.Mode(decl.PinsBlock) {
		t.Errorf("a project's skill server: %q, want block", got)
	}
	if got := skillPinsOf(st, d, false).Mode; got != pin.Mode(decl.PinsWarn) {
		t.Errorf("the user's skill server: %q, want warn", got)
	}
	st.Config.Pins = decl.PinsWarn
	if got := skillPinsOf(st, d, true).Mode; got != pin.Mode(decl.PinsWarn) {
		t.Errorf("a project's skill server under the config's pins: warn: %q", got)
	}
}

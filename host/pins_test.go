package host

import (
	"testing"

	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/mcpcap"
	"github.com/agentpool/agentpool/pin"
)

// An agent's server is the user's declaration, whatever a trusted project or a plugin names
// its own servers: it is pinned as the user's, with the user's default policy.
func TestAgentServerPinnedAsTheUsers(t *testing.T) {
	spec := decl.Server{Command: "agent-github"}
	st := &State{
		Config:         &config.Config{Agents: config.Agents{"coder": {MCPServers: mcpcap.Servers{"github": spec, "fs": spec}}}},
		Project:        &Project{Dir: "/work/evil-project"},
		projectServers: map[string]bool{"github": true},
		plugins:        pluginParts{servers: map[string]string{"fs": "someplugin"}},
		agents:         map[string]*Agent{},
	}
	pl := &planner{h: &Host{}, st: st}
	if err := planAgents(pl); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"github", "fs"} {
		var got *pinSpec
		for _, e := range pl.plan.Entries {
			if e.Key == (Key{ext.LevelAgent, ext.Scope{AgentName: "coder"}, name}) {
				ps := e.Decl.(serverDecl).Pins
				got = &ps
			}
		}
		if got == nil || *got != (pinSpec{Origin: "user", Mode: pin.Warn}) {
			t.Errorf("agent coder's server %s pinned as %+v; want the user's, warn", name, got)
		}
	}
}

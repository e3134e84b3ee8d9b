package config

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/exposure"
)

// server.tools and agents.<name>.tools decode into exposure.Config; an agent's unset fields
// are server.tools' once combined with Under.
func TestToolsKeys(t *testing.T) {
	data := `
server:
  tools:
    mode: auto
    always_on: [load_skill, "github__search_*"]
    always_on_servers: [memory]
    max_active: 8
    auto_tools: 40
    auto_bytes: 100000
agents:
  coder:
    tools: {mode: search}
`
	cfg, err := Parse("agentpool.yaml", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	want := exposure.Config{Mode: exposure.ModeAuto, AlwaysOn: []string{"load_skill", "github__search_*"}, AlwaysOnServers: []string{"memory"}, MaxActive: 8, AutoTools: 40, AutoBytes: 100000}
	if got := cfg.Server.Tools; got.Mode != want.Mode || !slices.Equal(got.AlwaysOn, want.AlwaysOn) || !slices.Equal(got.AlwaysOnServers, want.AlwaysOnServers) || got.MaxActive != 8 || got.AutoTools != 40 || got.AutoBytes != 100000 {
		t.Errorf("server.tools = %+v, want %+v", got, want)
	}
	agent := cfg.Agents["coder"].Tools.Under(cfg.Server.Tools)
	if agent.Mode != exposure.ModeSearch || agent.MaxActive != 8 || !slices.Equal(agent.AlwaysOn, want.AlwaysOn) {
		t.Errorf("agents.coder.tools under server.tools = %+v", agent)
	}
}

// A bad mode, pattern or negative number is reported under its key and line.
func TestToolsKeysErrors(t *testing.T) {
	data := `
server:
  tools:
    mode: lazy
    max_active: -1
agents:
  coder:
    tools:
      always_on: ["[x"]
`
	_, err := Parse("agentpool.yaml", []byte(data))
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		`agentpool.yaml:4:11: server.tools.mode: want all, search or auto, got "lazy"`,
		`server.tools.max_active: must not be negative, got -1`,
		`agents.coder.tools.always_on[0]: bad pattern "[x"`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

// A tools key may be the mode alone (`tools: search`), the short form of {mode: search}; a
// word that is no mode is reported at its line.
func TestToolsKeyModeAlone(t *testing.T) {
	cfg, err := Parse("agentpool.yaml", []byte("server: {tools: search}\nagents:\n  coder:\n    tools: auto\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Server.Tools; got.Mode != exposure.ModeSearch || got.AlwaysOn != nil || got.MaxActive != 0 {
		t.Errorf("server.tools = %+v, want {mode: search}", got)
	}
	if got := cfg.Agents["coder"].Tools.Under(cfg.Server.Tools); got.Mode != exposure.ModeAuto {
		t.Errorf("agents.coder.tools = %+v, want mode auto", got)
	}
	_, err = Parse("agentpool.yaml", []byte("server:\n  tools: lazy\n"))
	if want := `agentpool.yaml:2:10: server.tools: want all, search, auto or a mapping (mode, always_on, always_on_servers, max_active, auto_tools, auto_bytes), got "lazy"`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error = %v, want %q", err, want)
	}
}

// A tools key without a value (`tools:`, `tools: ~`) is the zero exposure.Config, as the
// schema allows: the mode is inherited. A word that is no mode, anchored and aliased, is
// reported once, at the anchor.
func TestToolsKeyNull(t *testing.T) {
	for _, data := range []string{"server:\n  tools:\n", "server: {tools: ~}\n", "server: {tools: null}\nagents: {a: {tools: }}\n"} {
		cfg, err := Parse("agentpool.yaml", []byte(data))
		if err != nil {
			t.Errorf("%q: %v", data, err)
			continue
		}
		if got := cfg.Server.Tools; got.Mode != "" || got.AlwaysOn != nil || got.MaxActive != 0 {
			t.Errorf("%q: server.tools = %+v, want the zero config", data, got)
		}
	}
	_, err := Parse("agentpool.yaml", []byte("agents:\n  a:\n    tools: &t lazy\n  b:\n    tools: *t\n"))
	want := `agentpool.yaml:3:15: agents.a.tools: want all, search, auto or a mapping (mode, always_on, always_on_servers, max_active, auto_tools, auto_bytes), got "lazy"`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want only %q", err, want)
	}
}

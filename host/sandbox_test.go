package host

import (
	"testing"

	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/mcpcap"
	"github.com/agentpool/agentpool/plugin"
	"github.com/google/go-cmp/cmp"
)

// Each server runs under its own sandbox key, else the default of where it is declared: the
// config's top-level one for the user's, with the plugin's folder readable for a plugin's, the
// project folder read-write for a trusted project's; sandbox: off (the server's own, or the
// top-level one) leaves none, and an HTTP server never has one.
func TestSandboxDefaults(t *testing.T) {
	def := &decl.Sandbox{Read: []string{"~/projects"}}
	own := &decl.Sandbox{Network: decl.Network{Mode: decl.NetworkNone}}
	st := &State{
		Config:         &config.Config{Sandbox: def},
		Project:        &Project{Dir: "/work/proj"},
		projectServers: map[string]bool{"proj": true},
		plugins: pluginParts{
			servers: map[string]string{"plug.s": "plug"},
			all:     &Plugins{List: []*PluginInfo{{Plugin: &plugin.Plugin{Name: "plug", Dir: "/plugins/plug"}}}},
		},
	}
	stdio := decl.Server{Type: decl.TypeStdio, Command: "x"}
	no := false
	project := &decl.Sandbox{Write: []string{"/work/proj"}, Exec: []string{"/work/proj"}, Required: &no}
	with := func(s *decl.Sandbox) decl.Server { v := stdio; v.Sandbox = s; return v }
	for _, c := range []struct {
		name string
		got  decl.Server
		want *decl.Sandbox
	}{
		{"user", st.sandboxed("u", stdio), def},
		{"user's own key", st.sandboxed("u", with(own)), own},
		{"user's off", st.sandboxed("u", with(&decl.Sandbox{Off: true})), nil},
		{"http", st.sandboxed("u", decl.Server{Type: decl.TypeStreamableHTTP, URL: "https://h/mcp"}), nil},
		{"plugin", st.sandboxed("plug.s", stdio), &decl.Sandbox{Read: []string{"~/projects", "/plugins/plug"}}},
		{"project", st.sandboxed("proj", stdio), project},
		{"agent", st.userSandboxed(stdio), def},
		{"skill", st.skillSandboxed(stdio, "/skills/pdf", false), &decl.Sandbox{Read: []string{"~/projects", "/skills/pdf"}}},
		{"project skill", st.skillSandboxed(stdio, "/work/proj/skills/pdf", true), &decl.Sandbox{Write: project.Write, Exec: project.Exec, Required: &no, Read: []string{"/work/proj/skills/pdf"}}},
	} {
		if diff := cmp.Diff(c.want, c.got.Sandbox); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
	if len(def.Read) != 1 {
		t.Errorf("the default was changed: %v", def.Read)
	}

	st.Config.Sandbox = &decl.Sandbox{Off: true}
	for _, got := range []decl.Server{st.sandboxed("u", stdio), st.sandboxed("proj", stdio), st.skillSandboxed(stdio, "/s", true)} {
		if got.Sandbox != nil {
			t.Errorf("top-level sandbox: off, got %+v", got.Sandbox)
		}
	}
	st.Config.Sandbox = nil
	if got := st.sandboxed("u", stdio); got.Sandbox != nil {
		t.Errorf("no top-level sandbox: user server got %+v", got.Sandbox)
	}
}

// A configured server's capability carries the sandbox it runs under to the pool.
func TestSandboxReachesThePool(t *testing.T) {
	h := buildHost(t, "x.yaml", `
sandbox: {read: [/srv]}
mcp_servers:
  a: {command: /nonexistent/a, lazy: true, tools: [{name: ping}]}
  b: {command: /nonexistent/b, lazy: true, tools: [{name: ping}], sandbox: off}
`, Options{})
	for name, want := range map[string]*decl.Sandbox{"a": {Read: []string{"/srv"}}, "b": nil} {
		c := serverCap(t, h, name).(*mcpcap.Cap)
		if diff := cmp.Diff(want, c.Config().Server.Sandbox); diff != "" {
			t.Errorf("server %s (-want +got):\n%s", name, diff)
		}
	}
}

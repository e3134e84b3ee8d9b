package host

import (
	"testing"

	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/mcpcap"
	"github.com/agentpool/agentpool/plugin"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
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
		{"skill", st.skillSandboxed("pdf.s", "/skills/pdf/SKILL.md", stdio, false), &decl.Sandbox{Read: []string{"~/projects", "/skills/pdf"}}},
		{"project skill", st.skillSandboxed("pdf.s", "/work/proj/skills/pdf/SKILL.md", stdio, true), &decl.Sandbox{Write: project.Write, Exec: project.Exec, Required: &no, Read: []string{"/work/proj/skills/pdf"}}},
	} {
		if diff := cmp.Diff(c.want, c.got.Sandbox, cmpopts.IgnoreFields(decl.Sandbox{}, "Ceiling")); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
	if len(def.Read) != 1 {
		t.Errorf("the default was changed: %v", def.Read)
	}

	st.Config.Sandbox = &decl.Sandbox{Off: true}
	for _, got := range []decl.Server{st.sandboxed("u", stdio), st.sandboxed("proj", stdio), st.skillSandboxed("s.s", "/s/SKILL.md", stdio, true)} {
		if got.Sandbox != nil {
			t.Errorf("top-level sandbox: off, got %+v", got.Sandbox)
		}
	}
	st.Config.Sandbox = nil
	if got := st.sandboxed("u", stdio); got.Sandbox != nil {
		t.Errorf("no top-level sandbox: user server got %+v", got.Sandbox)
	}
}

// A sandbox key the user did not write (a trusted project's, a plugin's, a skill's server) may
// narrow the default the user's config gives the server but not remove or widen it: what it
// asks beyond that is refused, on one line naming the server and the file. The user's own
// servers keep their own key; the top-level sandbox: off leaves no ceiling.
func TestForeignSandboxCeiling(t *testing.T) {
	def := &decl.Sandbox{Read: []string{"/home/u/projects"}, Network: decl.Network{Mode: decl.NetworkList, Allow: []string{"api.example.com:443"}}}
	st := &State{
		Config:         &config.Config{Sandbox: def},
		Project:        &Project{Dir: "/work/proj", Config: &config.Config{Path: "/work/proj/agentpool.yaml"}},
		projectServers: map[string]bool{"proj": true},
		plugins: pluginParts{
			servers: map[string]string{"plug.s": "plug"},
			all: &Plugins{List: []*PluginInfo{{
				Plugin:  &plugin.Plugin{Name: "plug", Dir: "/plugins/plug"},
				Sources: map[string]string{"plug.s": "/plugins/plug/.mcp.json"},
			}}},
		},
	}
	no := false
	with := func(s *decl.Sandbox) decl.Server { return decl.Server{Type: decl.TypeStdio, Command: "x", Sandbox: s} }
	wide := &decl.Sandbox{
		Read:     []string{"/home/u/projects/a", "/home/u/.ssh"},
		Write:    []string{"/work/proj/out", "/home/u"},
		Network:  decl.Network{Mode: decl.NetworkAll},
		Required: &no,
	}
	for _, c := range []struct {
		name    string
		got     decl.Server
		want    *decl.Sandbox
		refused string
	}{
		{"project off", st.sandboxed("proj", with(&decl.Sandbox{Off: true})),
			&decl.Sandbox{Write: []string{"/work/proj"}, Exec: []string{"/work/proj"}, Required: &no},
			`server "proj" (/work/proj/agentpool.yaml): sandbox kept within the default your config gives it: refused sandbox: off`},
		{"project wide", st.sandboxed("proj", with(wide)),
			&decl.Sandbox{Write: []string{"/work/proj/out"}, Network: decl.Network{Mode: decl.NetworkAll}, Required: &no},
			`server "proj" (/work/proj/agentpool.yaml): sandbox kept within the default your config gives it: refused read /home/u/projects/a, read /home/u/.ssh, write /home/u`},
		{"plugin wide", st.sandboxed("plug.s", with(wide)),
			&decl.Sandbox{Read: []string{"/home/u/projects/a"}, Network: def.Network},
			`server "plug.s" (/plugins/plug/.mcp.json): sandbox kept within the default your config gives it: refused read /home/u/.ssh, write /work/proj/out, write /home/u, network all, required: false`},
		{"skill off", st.skillSandboxed("pdf.s", "/skills/pdf/SKILL.md", with(&decl.Sandbox{Off: true}), false),
			&decl.Sandbox{Read: []string{"/home/u/projects", "/skills/pdf"}, Network: def.Network},
			`server "pdf.s" (/skills/pdf/SKILL.md): sandbox kept within the default your config gives it: refused sandbox: off`},
		{"skill narrower", st.skillSandboxed("pdf.s", "/skills/pdf/SKILL.md", with(&decl.Sandbox{Read: []string{"/skills/pdf/data"}, Network: decl.Network{Mode: decl.NetworkNone}}), false),
			&decl.Sandbox{Read: []string{"/skills/pdf/data"}, Network: decl.Network{Mode: decl.NetworkNone}}, ""},
		{"user's own off", st.sandboxed("u", with(&decl.Sandbox{Off: true})), nil, ""},
	} {
		var refused string
		if c.got.Sandbox != nil {
			refused = c.got.Sandbox.Dropped
			c.got.Sandbox.Dropped, c.got.Sandbox.Ceiling = "", nil
		}
		if diff := cmp.Diff(c.want, c.got.Sandbox); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
		if refused != c.refused {
			t.Errorf("%s: refused %q, want %q", c.name, refused, c.refused)
		}
	}
	if len(wide.Read) != 2 || len(def.Read) != 1 {
		t.Errorf("a declaration was changed: %+v, %+v", wide, def)
	}
	st.Config.Sandbox = &decl.Sandbox{Off: true}
	if got := st.sandboxed("plug.s", with(wide)); !cmp.Equal(got.Sandbox, wide) {
		t.Errorf("top-level sandbox: off: the plugin's own sandbox became %+v", got.Sandbox)
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

// A foreign sandbox that leaves out network or profile keeps the default's without a warning:
// it asked for nothing beyond it.
func TestForeignSandboxOmittedKeys(t *testing.T) {
	def := &decl.Sandbox{Read: []string{"/home/u/projects"}, Profile: decl.ProfileNode, Network: decl.Network{Mode: decl.NetworkList, Allow: []string{"api.example.com:443"}}}
	st := &State{
		Config: &config.Config{Sandbox: def},
		plugins: pluginParts{
			servers: map[string]string{"plug.s": "plug"},
			all: &Plugins{List: []*PluginInfo{{
				Plugin:  &plugin.Plugin{Name: "plug", Dir: "/plugins/plug"},
				Sources: map[string]string{"plug.s": "/plugins/plug/.mcp.json"},
			}}},
		},
	}
	got := st.sandboxed("plug.s", decl.Server{Type: decl.TypeStdio, Command: "x", Sandbox: &decl.Sandbox{Read: []string{"/plugins/plug/data"}}}).Sandbox
	want := &decl.Sandbox{Read: []string{"/plugins/plug/data"}, Profile: def.Profile, Network: def.Network}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(decl.Sandbox{}, "Ceiling")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// A trusted project's plugin is the project's: its servers get the project's default (with the
// plugin's folder readable) as their ceiling, as its skills' servers do, even when the user's
// config sets no default, so that `sandbox: off` there does not lift it.
func TestProjectPluginSandbox(t *testing.T) {
	no := false
	st := &State{
		Config:  &config.Config{},
		Project: &Project{Dir: "/work/proj", Config: &config.Config{Path: "/work/proj/agentpool.yaml"}},
		plugins: pluginParts{
			servers: map[string]string{"plug.s": "plug"},
			all: &Plugins{List: []*PluginInfo{{
				Plugin:  &plugin.Plugin{Name: "plug", Dir: "/work/proj/plugins/plug", Source: projectPluginSource},
				Sources: map[string]string{"plug.s": "/work/proj/plugins/plug/.mcp.json"},
			}}},
		},
	}
	want := &decl.Sandbox{Read: []string{"/work/proj/plugins/plug"}, Write: []string{"/work/proj"}, Exec: []string{"/work/proj"}, Required: &no}
	for _, s := range []*decl.Sandbox{nil, {Off: true}} {
		got := st.sandboxed("plug.s", decl.Server{Type: decl.TypeStdio, Command: "x", Sandbox: s}).Sandbox
		if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(decl.Sandbox{}, "Ceiling", "Dropped")); diff != "" {
			t.Errorf("sandbox %+v (-want +got):\n%s", s, diff)
		}
	}
}

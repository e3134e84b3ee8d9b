package host

import (
	"context"
	"fmt"
	"github.com/agentpool/agentpool/internal/testserver"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/ext"
)

// TestReloadDiff: Reload applies only what differs — a server added, removed, changed (a
// new capability) or unchanged (the same capability value), the skills section (a new
// manager over the new roots), agents added and removed — and says so in its result; an
// invalid config changes nothing.
func TestReloadDiff(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "agentpool.yaml")
	for _, s := range []string{"a", "b"} {
		if err := os.MkdirAll(filepath.Join(dir, "skills-"+s, "s-"+s), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "skills-"+s, "s-"+s, "SKILL.md"), []byte("---\nname: s-"+s+"\ndescription: d\n---\nbody\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h := buildHost(t, path, `
skills: {dirs: [./skills-a]}
mcp_servers:
  keep: {url: "http://127.0.0.1:1/mcp"}
  change: {url: "http://127.0.0.1:1/mcp"}
  drop: {url: "http://127.0.0.1:1/mcp"}
agents:
  old: {}
`, Options{})
	capOf := func(name string) ext.Capability {
		for _, c := range h.Registry.Visible(ext.Scope{}) {
			if c.Name() == name {
				return c
			}
		}
		return nil
	}
	keep, change := capOf("keep"), capOf("change")
	next, err := config.Parse(path, []byte(`
skills: {dirs: [./skills-b]}
mcp_servers:
  keep: {url: "http://127.0.0.1:1/mcp"}
  change: {url: "http://127.0.0.1:2/mcp"}
  add: {url: "http://127.0.0.1:1/mcp"}
agents:
  new: {}
`))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	res, err := h.Reload(ctx, next)
	if err != nil {
		t.Fatal(err)
	}
	want := ReloadResult{At: res.At,
		Added:     []string{"agents.new", "mcp_servers.add"},
		Removed:   []string{"agents.old", "mcp_servers.drop"},
		Changed:   []string{"mcp_servers.change", "skills"},
		Restarted: []string{"mcp_servers.change"}}
	if !slices.Equal(res.Added, want.Added) || !slices.Equal(res.Removed, want.Removed) ||
		!slices.Equal(res.Changed, want.Changed) || !slices.Equal(res.Restarted, want.Restarted) || len(res.Failed) > 0 {
		t.Fatalf("result %+v, want %+v", res, want)
	}
	if capOf("keep") != keep {
		t.Error("unchanged server keep was replaced")
	}
	if c := capOf("change"); c == nil || c == change {
		t.Error("changed server change was not replaced")
	}
	if capOf("drop") != nil || capOf("add") == nil {
		t.Error("drop still registered, or add not")
	}
	if h.Current().Skills.Skill("s-b") == nil || h.Current().Skills.Skill("s-a") != nil {
		t.Error("the skill manager does not follow skills.dirs")
	}
	if _, err := h.Agent("new"); err != nil {
		t.Error(err)
	}
	if _, err := h.Agent("old"); err == nil {
		t.Error("removed agent old still known")
	}

	// Invalid: refused whole, nothing changes.
	bad := &config.Config{MCPServers: next.MCPServers}
	bad.MCPServers = maps.Clone(next.MCPServers)
	bad.MCPServers["skills"] = next.MCPServers["keep"]
	if _, err := h.Reload(ctx, bad); err == nil || !strings.Contains(err.Error(), "reserved") {
		t.Fatalf("reload with a server named skills: err = %v", err)
	}
	if capOf("keep") != keep || capOf("add") == nil {
		t.Error("a refused reload changed the registry")
	}
	if res, err := h.Reload(ctx, next); err != nil || !res.Empty() {
		t.Errorf("reloading the same config: %+v, %v; want nothing changed", res, err)
	}
}

// A reload of a host with a trusted project applies the user's new config, with the
// project's servers merged into it again: the user's edit is not dropped, the project's
// servers stay the project's (not "shadowed" by themselves).
func TestReloadWithTrustedProjectAppliesUserConfig(t *testing.T) {
	project, home := t.TempDir(), t.TempDir()
	pc, err := config.Parse(filepath.Join(project, "agentpool.yaml"), []byte("mcp_servers:\n  theirs:\n    command: /nonexistent/theirs\n    lazy: true\n    tools: [{name: t, description: Theirs.}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	user := "mcp_servers:\n  mine:\n    command: /nonexistent/mine\n    lazy: true\n    tools: [{name: t, description: Mine.}]\n"
	path := filepath.Join(home, "agentpool.yaml")
	h := buildHost(t, path, user, Options{ProjectDir: project, HomeDir: home, TrustProject: true, ProjectConfig: pc})
	next, err := config.Parse(path, []byte(user+"  added:\n    command: /nonexistent/added\n    lazy: true\n    tools: [{name: t, description: Added.}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := h.Reload(context.Background(), next)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Added, []string{"mcp_servers.added"}) || len(res.Removed)+len(res.Changed) > 0 {
		t.Errorf("result %+v, want mcp_servers.added added and nothing else", res)
	}
	names := map[string]bool{}
	for _, c := range h.Registry.Visible(ext.Scope{}) {
		names[c.Name()] = true
	}
	for _, n := range []string{"mine", "added", "theirs"} {
		if !names[n] {
			t.Errorf("%s not registered after the reload (registered: %v)", n, names)
		}
	}
	if len(h.Current().Project.Shadowed) > 0 {
		t.Errorf("Project.Shadowed = %v after the reload, want none", h.Current().Project.Shadowed)
	}
}

// extensions.allowed_commands narrowed by a reload holds for an agent's skills' servers in
// its live sessions too, as for a pool session's: the factory that starts them holds the
// allowlist it was made with, so the reload must give them a new one.
func TestReloadAllowedCommandsReachesAgentSkillServers(t *testing.T) {
	bin := testserver.Build(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "review/ops/SKILL.md"),
		"---\nname: ops\ndescription: Ops.\nmcp-servers:\n  srv:\n    command: "+bin+"\n---\nBody.\n")
	path := filepath.Join(dir, "agentpool.yaml")
	cfg := "skills: {watch: false}\nagents:\n  r:\n    skills: {dirs: [./review]}\nextensions:\n  allowed_commands: [%s]\n"
	h := buildHost(t, path, fmt.Sprintf(cfg, bin), Options{})
	ctx := context.Background()
	if _, err := h.OpenAgentSession(ctx, "s1", "r"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.CloseSession(ctx, "s1") })
	next, err := config.Parse(path, []byte(fmt.Sprintf(cfg, "true")))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Reload(ctx, next); err != nil {
		t.Fatal(err)
	}
	slot := ext.Scope{SessionID: "s1", AgentName: "r"}
	var ss *sessionSkills
	for _, reg := range h.Registry.Registrations(slot) {
		if s, ok := reg.Capability.(*sessionSkills); ok && reg.Level == ext.LevelAgent && reg.Slot == slot {
			ss = s
		}
	}
	if ss == nil {
		t.Fatal("session s1 of agent r has no agent-skill-servers after the reload")
	}
	tools, _ := ss.Tools(ctx)
	if len(tools) > 0 {
		t.Errorf("agent r's skill server %s started after allowed_commands dropped it: %d tools (%s, …)", bin, len(tools), tools[0].Name)
	}
}

// TestReloadNotesStatelessAtRestart: server.stateless decides how the running gateways serve
// (sessions or none), which a reload cannot change; a reload that flips it says it takes
// effect at restart, as for the other server keys. Unsaid, a reload turning it off beside a
// new scope: session server looked applied while no session could start that server.
func TestReloadNotesStatelessAtRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agentpool.yaml")
	h := buildHost(t, path, "server: {stateless: true}\n", Options{})
	next, err := config.Parse(path, []byte("server: {stateless: false}\nmcp_servers:\n  own: {url: \"http://127.0.0.1:1/mcp\", scope: session}\n"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := h.Reload(context.Background(), next)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(res.AtRestart, "server.stateless changed: takes effect at restart") {
		t.Errorf("AtRestart %q, want server.stateless named", res.AtRestart)
	}
}

package host

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/agentpool/agentpool/plugin"
	"github.com/agentpool/agentpool/trust"
)

// writeClaudePlugin writes a Claude Code plugin named name at dir with the skills given, a
// command file hello.md and, when bin is not "", an .mcp.json declaring server "srv" running
// bin with its log under ${CLAUDE_PLUGIN_ROOT}.
func writeClaudePlugin(t *testing.T, dir, name, bin string, skills ...string) {
	t.Helper()
	writeFile(t, filepath.Join(dir, ".claude-plugin", "plugin.json"), fmt.Sprintf(`{"name": %q, "version": "1.2.3", "description": "plugin %s"}`, name, name))
	for _, s := range skills {
		writeSkill(t, filepath.Join(dir, "skills"), s)
	}
	writeFile(t, filepath.Join(dir, "commands", "hello.md"), "---\ndescription: says hello\n---\nHello from "+name+" $ARGUMENTS\n")
	switch {
	case strings.HasSuffix(bin, "marked-server.sh"):
		writeFile(t, filepath.Join(dir, ".mcp.json"), fmt.Sprintf(`{"mcpServers": {"srv": {"command": %q, "args": ["${CLAUDE_PLUGIN_ROOT}"]}}}`, bin))
	case bin != "":
		writeFile(t, filepath.Join(dir, ".mcp.json"), fmt.Sprintf(`{"mcpServers": {"srv": {"command": %q, "args": ["--log", "${CLAUDE_PLUGIN_ROOT}/calls.log"]}}}`, bin))
	}
}

// markedServer writes, in dir, a script that creates the file "started" in the folder its
// first argument names and then runs bin: a plugin whose .mcp.json runs it (with
// ${CLAUDE_PLUGIN_ROOT}) leaves "started" in its folder when its server was ever started.
func markedServer(t *testing.T, dir, bin string) string {
	t.Helper()
	path := filepath.Join(dir, "marked-server.sh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\ntouch \"$1/started\"\nexec "+bin+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// everStarted reports whether the marked server of the plugin at dir was ever started.
func everStarted(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "started"))
	return err == nil
}

// listEverything lists the tools of every capability a session sees, which connects every
// server that may be connected.
func listEverything(t *testing.T, h *Host) {
	t.Helper()
	ctx := context.Background()
	if _, err := h.OpenSession(ctx, "look"); err != nil {
		t.Fatal(err)
	}
	defer h.CloseSession(ctx, "look")
	for _, c := range h.Registry.Visible(ext.Scope{SessionID: "look"}) {
		if tp, ok := c.(ext.ToolProvider); ok {
			_, _ = tp.Tools(ctx)
		}
	}
}

// pluginMarketplace writes, under dir, a marketplace "demo" with plugins a (skill configure,
// a server), b (skill configure) and c (skill other), and a plugin on GitHub; it returns the
// marketplace folder.
func pluginMarketplace(t *testing.T, dir, bin string) string {
	t.Helper()
	mkt := filepath.Join(dir, "mkt")
	writeClaudePlugin(t, filepath.Join(mkt, "plugins", "a"), "a", bin, "configure")
	writeClaudePlugin(t, filepath.Join(mkt, "plugins", "b"), "b", "", "configure")
	writeClaudePlugin(t, filepath.Join(mkt, "plugins", "c"), "c", markedServer(t, dir, bin), "other")
	writeFile(t, filepath.Join(mkt, ".claude-plugin", "marketplace.json"), `{"name": "demo", "owner": {"name": "us"}, "plugins": [
  {"name": "a", "source": "./plugins/a"},
  {"name": "b", "source": "./plugins/b"},
  {"name": "c", "source": "./plugins/c"},
  {"name": "far", "source": {"source": "github", "repo": "example/far"}}]}`)
	return mkt
}

func skillNames(t *testing.T, h *Host) []string {
	t.Helper()
	skills, err := h.Current().Skills.ListSkills(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range skills {
		out = append(out, s.Name)
	}
	slices.Sort(out)
	return out
}

// commandNames lists the commands of every registered command source at pool scope.
func commandNames(t *testing.T, h *Host) []string {
	t.Helper()
	var out []string
	for _, c := range h.Registry.Visible(ext.Scope{}) {
		if cr, ok := c.(ext.CommandResource); ok && strings.HasPrefix(c.Name(), "plugin:") {
			cmds, err := cr.ListCommands(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range cmds {
				out = append(out, e.Name)
			}
		}
	}
	slices.Sort(out)
	return out
}

func serverNames(h *Host) []string {
	var out []string
	for _, c := range h.Registry.Visible(ext.Scope{}) {
		if strings.Contains(c.Name(), ".") {
			out = append(out, c.Name())
		}
	}
	slices.Sort(out)
	return out
}

// TestPluginsInHost: a marketplace's enabled plugins bring their skills (qualified: a user's
// skill of the same bare name keeps it), their command files (qualified) and their servers
// (named <plugin>.<server>, ${CLAUDE_PLUGIN_ROOT} expanded); a plugin not enabled brings
// nothing and is still listed; a plugin on GitHub is an entry, not loaded.
func TestPluginsInHost(t *testing.T) {
	bin := testserver.Build(t)
	dir := t.TempDir()
	mkt := pluginMarketplace(t, dir, bin)
	writeSkill(t, filepath.Join(dir, "user-skills"), "configure")
	h := buildHost(t, filepath.Join(dir, "agentpool.yaml"), `
skills: {dirs: [./user-skills]}
plugins:
  marketplaces:
    - {path: ./mkt, enable: [a, b]}
`, Options{})
	if got, want := skillNames(t, h), []string{"a:configure", "b:configure", "configure"}; !slices.Equal(got, want) {
		t.Errorf("skills %v, want %v", got, want)
	}
	if d := h.Current().Skills.Diagnostics(); len(d) > 0 {
		t.Errorf("skill diagnostics %v, want none (no collision)", d)
	}
	if got, want := commandNames(t, h), []string{"a:hello", "b:hello"}; !slices.Equal(got, want) {
		t.Errorf("commands %v, want %v", got, want)
	}
	if got, want := serverNames(h), []string{"a.srv"}; !slices.Equal(got, want) {
		t.Fatalf("servers %v, want %v", got, want)
	}
	ps := h.Plugins()
	if c := ps.Get("c"); c == nil || c.Enabled || c.Used() {
		t.Errorf("plugin c: %+v, want listed and not enabled", c)
	}
	var far *plugin.Entry
	for i, e := range ps.Catalog.Entries {
		if e.Name == "far" {
			far = &ps.Catalog.Entries[i]
		}
	}
	if far == nil || far.Loaded || far.Fetch == "" {
		t.Errorf("entry far: %+v, want not loaded, with a fetch command", far)
	}

	// The server runs with ${CLAUDE_PLUGIN_ROOT} expanded: its --log lands in the plugin.
	res, err := serverCap(t, h, "a.srv").CallTool(context.Background(), &ext.ToolCall{Name: "a.srv__count"})
	if err != nil || res.IsError {
		t.Fatalf("a.srv__count: %v %+v", err, res)
	}
	if _, err := os.Stat(filepath.Join(mkt, "plugins", "a", "calls.log")); err != nil {
		t.Errorf("the server's log is not in the plugin folder: %v", err)
	}
	// A plugin not enabled starts nothing, whatever a session lists.
	listEverything(t, h)
	if everStarted(filepath.Join(mkt, "plugins", "c")) {
		t.Error("the server of plugin c, not enabled, was started")
	}
}

// serverCap returns the capability named name visible at pool scope, as a tool provider.
func serverCap(t *testing.T, h *Host, name string) ext.ToolProvider {
	t.Helper()
	for _, c := range h.Registry.Visible(ext.Scope{}) {
		if c.Name() == name {
			if tp, ok := c.(ext.ToolProvider); ok {
				return tp
			}
		}
	}
	t.Fatalf("no tool provider %q", name)
	return nil
}

// TestPluginDisabledByReload: disabling a plugin in the state file and reloading takes its
// skills, commands and server away, and the server's process ends then; enabling it again
// brings them back.
func TestPluginDisabledByReload(t *testing.T) {
	bin := testserver.Build(t)
	dir := t.TempDir()
	writeClaudePlugin(t, filepath.Join(dir, "plug"), "p", bin, "configure")
	state := filepath.Join(dir, "state", "plugins.json")
	path := filepath.Join(dir, "agentpool.yaml")
	data := "plugins: {dirs: [./plug]}\n"
	h := buildHost(t, path, data, Options{PluginState: state})
	res, err := serverCap(t, h, "p.srv").CallTool(context.Background(), &ext.ToolCall{Name: "p.srv__pid"})
	if err != nil || res.IsError || len(res.Content) == 0 {
		t.Fatalf("p.srv__pid: %v %+v", err, res)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(res.Content[0].Text))
	if err != nil {
		t.Fatal(err)
	}

	if err := plugin.SetEnabled(state, "p", false); err != nil {
		t.Fatal(err)
	}
	next, err := config.Parse(path, []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	rr, err := h.Reload(context.Background(), next)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(rr.Removed, "mcp_servers.p.srv") || !slices.Contains(rr.Removed, "plugins.p") || !slices.Contains(rr.Changed, "skills") {
		t.Errorf("reload %+v: want p.srv and plugins.p removed, skills changed", rr)
	}
	if got := skillNames(t, h); slices.Contains(got, "p:configure") {
		t.Errorf("skills %v after disabling p", got)
	}
	if got := commandNames(t, h); len(got) > 0 {
		t.Errorf("commands %v after disabling p", got)
	}
	if got := serverNames(h); len(got) > 0 {
		t.Errorf("servers %v after disabling p", got)
	}
	testwait.Within(t, 10*time.Second, fmt.Sprintf("the disabled plugin's server (pid %d) to end", pid), func() bool { return !testwait.Alive(pid) })

	if err := plugin.SetEnabled(state, "p", true); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Reload(context.Background(), next); err != nil {
		t.Fatal(err)
	}
	if got := skillNames(t, h); !slices.Contains(got, "p:configure") {
		t.Errorf("skills %v after enabling p again", got)
	}
	if got := serverNames(h); !slices.Equal(got, []string{"p.srv"}) {
		t.Errorf("servers %v after enabling p again", got)
	}
}

// TestProjectPlugins: a plugin the project's agentpool.yaml names is project content:
// untrusted, it is listed and starts nothing, its server fingerprinted with the project's
// others; trusted, it is used; a change of its .mcp.json asks again.
func TestProjectPlugins(t *testing.T) {
	bin := testserver.Build(t)
	proj := t.TempDir()
	writeClaudePlugin(t, filepath.Join(proj, "plug"), "p", markedServer(t, t.TempDir(), bin), "configure")
	writeFile(t, filepath.Join(proj, "agentpool.yaml"), "plugins: {dirs: [./plug]}\n")
	pc, err := config.Load(filepath.Join(proj, "agentpool.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	h := buildHost(t, filepath.Join(t.TempDir(), "agentpool.yaml"), "{}\n", Options{NoDefaultRoots: true, ProjectDir: proj, ProjectConfig: pc})
	p := h.Plugins().Get("p")
	if p == nil || !p.Untrusted || p.Used() {
		t.Fatalf("project plugin %+v: want listed, untrusted, not used", p)
	}
	if got := serverNames(h); len(got) > 0 {
		t.Errorf("servers %v of an untrusted project's plugin", got)
	}
	if got := skillNames(t, h); slices.Contains(got, "p:configure") {
		t.Errorf("skills %v hold an untrusted project's plugin skill", got)
	}
	if !slices.ContainsFunc(h.Current().Project.Decls, func(d trust.Decl) bool { return d.Name == "p.srv" }) {
		t.Errorf("the plugin's server is not among the project's declarations %+v", h.Current().Project.Decls)
	}
	listEverything(t, h)
	if everStarted(filepath.Join(proj, "plug")) {
		t.Fatal("the server of an untrusted project's plugin was started")
	}

	// The plugin's server touches a marker and runs the test server, both outside the project,
	// which the project's default sandbox would refuse: the user's config turns it off.
	ht := buildHost(t, filepath.Join(t.TempDir(), "agentpool.yaml"), "sandbox: off\n", Options{NoDefaultRoots: true, ProjectDir: proj, ProjectConfig: pc, TrustProject: true})
	if got := serverNames(ht); !slices.Equal(got, []string{"p.srv"}) {
		t.Errorf("servers %v of a trusted project's plugin, want p.srv", got)
	}
	if got := skillNames(t, ht); !slices.Contains(got, "p:configure") {
		t.Errorf("skills %v of a trusted project lack p:configure", got)
	}
	listEverything(t, ht)
	if !everStarted(filepath.Join(proj, "plug")) {
		t.Error("the server of a trusted project's plugin did not start (the marker test cannot see a start)")
	}

	// Trusted by record; then the plugin's .mcp.json changes what it runs: untrusted again.
	store := trust.NewStore(filepath.Join(t.TempDir(), "trust.json"))
	if err := store.Trust(h.Current().Project.Dir, trust.Digests(h.Current().Project.Decls), time.Now()); err != nil {
		t.Fatal(err)
	}
	hr := buildHost(t, filepath.Join(t.TempDir(), "agentpool.yaml"), "{}\n", Options{NoDefaultRoots: true, ProjectDir: proj, ProjectConfig: pc, Trust: store})
	if got := serverNames(hr); !slices.Equal(got, []string{"p.srv"}) {
		t.Errorf("servers %v of a project trusted by record, want p.srv", got)
	}
	mcpFile := filepath.Join(proj, "plug", ".mcp.json")
	data, err := os.ReadFile(mcpFile)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, mcpFile, strings.Replace(string(data), `"args": [`, `"args": ["--changed", `, 1))
	hc := buildHost(t, filepath.Join(t.TempDir(), "agentpool.yaml"), "{}\n", Options{NoDefaultRoots: true, ProjectDir: proj, ProjectConfig: pc, Trust: store})
	if hc.Current().Project.Verdict.Status != trust.Changed {
		t.Errorf("verdict %v after the plugin's server changed, want changed", hc.Current().Project.Verdict.Status)
	}
	if got := serverNames(hc); len(got) > 0 {
		t.Errorf("servers %v after the plugin's server changed, want none until trusted again", got)
	}
}

// TestPluginBadServerKeepsTheRest: one bad server in a plugin's .mcp.json (an unknown type)
// is a problem naming the file; the plugin's other server, skills and commands stand.
func TestPluginBadServerKeepsTheRest(t *testing.T) {
	bin := testserver.Build(t)
	dir := t.TempDir()
	writeClaudePlugin(t, filepath.Join(dir, "plug"), "p", "", "configure")
	mcp := filepath.Join(dir, "plug", ".mcp.json")
	data, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"good": map[string]any{"command": bin},
		"bad":  map[string]any{"type": "carrier-pigeon", "url": "http://127.0.0.1:1/"},
	}})
	writeFile(t, mcp, string(data))
	h := buildHost(t, filepath.Join(dir, "agentpool.yaml"), "plugins: {dirs: [./plug]}\n", Options{})
	if got := serverNames(h); !slices.Equal(got, []string{"p.good"}) {
		t.Errorf("servers %v, want p.good alone", got)
	}
	p := h.Plugins().Get("p")
	if p == nil || len(p.Problems) == 0 || !strings.Contains(strings.Join(p.Problems, "\n"), mcp) {
		t.Errorf("problems %v: want one naming %s", p.Problems, mcp)
	}
	if got := skillNames(t, h); !slices.Contains(got, "p:configure") {
		t.Errorf("skills %v lack p:configure", got)
	}
}

// TestProjectPluginSkillServersTrusted: a project plugin's skills' own servers are project
// content as the project's skills' are: fingerprinted with its others (trusting the project
// names them), a changed one makes the project changed, and one added while a trusted host
// runs is refused, not started.
func TestProjectPluginSkillServersTrusted(t *testing.T) {
	bin := testserver.Build(t)
	proj, home := t.TempDir(), t.TempDir()
	marker := filepath.Join(t.TempDir(), "MARKER")
	plug := filepath.Join(proj, "plug")
	writeFile(t, filepath.Join(plug, ".claude-plugin", "plugin.json"), `{"name": "p"}`)
	markerSkill(t, filepath.Join(plug, "skills"), "conf", marker, bin)
	writeFile(t, filepath.Join(proj, "agentpool.yaml"), "plugins: {dirs: [./plug]}\n")
	pc, err := config.Load(filepath.Join(proj, "agentpool.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	store := trust.NewStore(filepath.Join(t.TempDir(), "trust.json"))
	opts := Options{NoDefaultRoots: true, ProjectDir: proj, ProjectConfig: pc, HomeDir: home, Trust: store}
	h := buildHost(t, "", "sandbox: off\n", opts)
	if !slices.ContainsFunc(h.Current().Project.Decls, func(d trust.Decl) bool { return d.Name == "p.conf.srv" }) {
		t.Fatalf("the plugin skill's server is not among the project's declarations %+v", h.Current().Project.Decls)
	}
	if err := store.Trust(h.Current().Project.Dir, trust.Digests(h.Current().Project.Decls), time.Now()); err != nil {
		t.Fatal(err)
	}
	h = buildHost(t, "", "sandbox: off\n", opts)
	if !h.Current().Project.Trusted() {
		t.Fatalf("verdict %+v, want trusted", h.Current().Project.Verdict)
	}
	if _, tools := listAll(t, h, "s1"); !slices.Contains(tools, "p.conf__echo") || !exists(marker) {
		t.Fatalf("trusted: tools %v, marker %v; want the plugin skill's server", tools, exists(marker))
	}
	os.Remove(marker)

	// A changed command: the project is changed, nothing starts.
	markerSkill(t, filepath.Join(plug, "skills"), "conf", marker, bin+" ")
	h = buildHost(t, "", "{}", opts)
	if v := h.Current().Project.Verdict; v.Status != trust.Changed {
		t.Fatalf("verdict %+v after the plugin skill's server changed, want changed", v)
	}
	if listAll(t, h, "s2"); exists(marker) {
		t.Fatal("changed: the plugin skill's server started")
	}

	// Trusted again, then a server added while the host runs: refused.
	markerSkill(t, filepath.Join(plug, "skills"), "conf", marker, bin)
	h = buildHost(t, "", "sandbox: off\n", opts)
	if !h.Current().Project.Trusted() {
		t.Fatalf("verdict %+v, want trusted again", h.Current().Project.Verdict)
	}
	added := filepath.Join(t.TempDir(), "ADDED")
	markerSkill(t, filepath.Join(plug, "skills"), "added", added, bin)
	if err := h.Current().Skills.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if listAll(t, h, "s3"); !exists(marker) || exists(added) {
		t.Fatalf("trusted server started %v, added one started %v: want the trusted one only", exists(marker), exists(added))
	}
}

// TestProjectPluginFollowsState: `agentpool plugins disable NAME` (the state file) holds for a
// project's plugin as for the user's: a trusted project's plugin the user disabled is not
// used, and enabling it again uses it.
func TestProjectPluginFollowsState(t *testing.T) {
	bin := testserver.Build(t)
	proj, dir := t.TempDir(), t.TempDir()
	writeClaudePlugin(t, filepath.Join(proj, "plug"), "p", bin, "configure")
	writeFile(t, filepath.Join(proj, "agentpool.yaml"), "plugins: {dirs: [./plug]}\n")
	pc, err := config.Load(filepath.Join(proj, "agentpool.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(dir, "plugins.json")
	if err := plugin.SetEnabled(state, "p", false); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "agentpool.yaml")
	h := buildHost(t, path, "{}\n", Options{NoDefaultRoots: true, ProjectDir: proj, ProjectConfig: pc, TrustProject: true, PluginState: state})
	if p := h.Plugins().Get("p"); p == nil || p.Enabled || p.Used() {
		t.Fatalf("project plugin %+v: want disabled by the state file", p)
	}
	if got := serverNames(h); len(got) > 0 {
		t.Errorf("servers %v of a project plugin the user disabled", got)
	}
	if got := skillNames(t, h); slices.Contains(got, "p:configure") {
		t.Errorf("skills %v hold a project plugin the user disabled", got)
	}

	if err := plugin.SetEnabled(state, "p", true); err != nil {
		t.Fatal(err)
	}
	reloadEmpty(t, h, path)
	if got := serverNames(h); !slices.Equal(got, []string{"p.srv"}) {
		t.Errorf("servers %v after enabling the project plugin again, want p.srv", got)
	}
}

// TestProjectPluginNameFreedByReload: a trusted project's plugin not used because one of the
// user's has its name is used once a reload drops the user's: the project's plugin as
// inspected is not changed by being passed over.
func TestProjectPluginNameFreedByReload(t *testing.T) {
	bin := testserver.Build(t)
	proj, dir := t.TempDir(), t.TempDir()
	writeClaudePlugin(t, filepath.Join(proj, "plug"), "p", bin)
	writeClaudePlugin(t, filepath.Join(dir, "mine"), "p", "")
	writeFile(t, filepath.Join(proj, "agentpool.yaml"), "plugins: {dirs: [./plug]}\n")
	pc, err := config.Load(filepath.Join(proj, "agentpool.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "agentpool.yaml")
	h := buildHost(t, path, "plugins: {dirs: [./mine]}\n", Options{NoDefaultRoots: true, ProjectDir: proj, ProjectConfig: pc, TrustProject: true})
	if got := serverNames(h); len(got) > 0 {
		t.Fatalf("servers %v: the project's plugin p is used though the user has one named p", got)
	}
	reloadEmpty(t, h, path)
	if got := serverNames(h); !slices.Equal(got, []string{"p.srv"}) {
		t.Errorf("servers %v once the user's p is gone, want the project's p.srv", got)
	}
}

// TestProjectPluginDeclsAsWritten: a project plugin's server is fingerprinted as its
// .mcp.json writes it, as a project config's is: the value of a variable of the user's
// environment it names is neither in the declaration trust prints nor in its digest, so a
// rotated secret is not printed and does not ask again.
func TestProjectPluginDeclsAsWritten(t *testing.T) {
	proj := t.TempDir()
	writeFile(t, filepath.Join(proj, "plug", ".claude-plugin", "plugin.json"), `{"name": "p"}`)
	writeFile(t, filepath.Join(proj, "plug", ".mcp.json"), `{"mcpServers": {"srv": {"command": "/bin/true",
  "args": ["--token", "${RV_PLUGIN_SECRET}", "--root", "${CLAUDE_PLUGIN_ROOT}"], "env": {"TOKEN": "${RV_PLUGIN_SECRET}"}}}}`)
	writeFile(t, filepath.Join(proj, "agentpool.yaml"), "plugins: {dirs: [./plug]}\n")
	pc, err := config.Load(filepath.Join(proj, "agentpool.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	decl := func(secret string) trust.Decl {
		t.Setenv("RV_PLUGIN_SECRET", secret)
		p, err := InspectProject(ProjectOptions{Dir: proj, Config: pc})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close(context.Background())
		for _, d := range p.Decls {
			if d.Name == "p.srv" {
				return d
			}
		}
		t.Fatalf("no p.srv in %+v", p.Decls)
		return trust.Decl{}
	}
	one := decl("s3cret-one")
	if data, _ := json.Marshal(one); strings.Contains(string(data), "s3cret") {
		t.Errorf("the declaration holds the secret's value: %s", data)
	}
	if two := decl("s3cret-two"); one.Digest() != two.Digest() {
		t.Errorf("the digest changed with the secret's value: %+v, then %+v", one, two)
	}
}

func TestAgentSkillsWithPlugins(t *testing.T) {
	dir := t.TempDir()
	writeClaudePlugin(t, filepath.Join(dir, "plug"), "p", "", "configure")
	writeSkill(t, filepath.Join(dir, "pool"), "common")
	writeSkill(t, filepath.Join(dir, "review"), "review")
	h := buildHost(t, filepath.Join(dir, "agentpool.yaml"), `
skills: {dirs: [./pool]}
plugins: {dirs: [./plug]}
agents:
  reviewer:
    skills: {dirs: [./review]}
`, Options{})
	if got, want := skillNames(t, h), []string{"common", "p:configure"}; !slices.Equal(got, want) {
		t.Fatalf("pool skills %v, want %v", got, want)
	}
	r, err := h.Agent("reviewer")
	if err != nil || r.Skills == nil {
		t.Fatalf("agent reviewer: %v, %+v", err, r)
	}
	var got []string
	for _, s := range r.Skills.Skills() {
		got = append(got, s.Name)
	}
	slices.Sort(got)
	if want := []string{"common", "p:configure", "review"}; !slices.Equal(got, want) {
		t.Errorf("reviewer's skills = %v, want %v", got, want)
	}
}

// reloadEmpty reloads h with an empty config at path: the user's config emptied.
func reloadEmpty(t *testing.T, h *Host, path string) {
	t.Helper()
	next, err := config.Parse(path, []byte("{}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Reload(context.Background(), next); err != nil {
		t.Fatal(err)
	}
}

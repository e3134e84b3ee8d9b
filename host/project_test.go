package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/trust"
	"github.com/agentpool/agentpool/view"
)

// markerSkill writes, under the skill root root, a skill name whose server touches marker,
// then runs bin.
func markerSkill(t *testing.T, root, name, marker, bin string) {
	t.Helper()
	writeFile(t, filepath.Join(root, name, "SKILL.md"), fmt.Sprintf(`---
name: %s
description: A skill with a server.
mcp-servers:
  srv:
    command: sh
    args: ["-c", "touch %s; exec %s"]
---
Body.
`, name, marker, bin))
}

// listAll lists the tools of every capability the CLI's session sees (starting what lists
// start) and returns the capabilities' names and the tools' names.
func listAll(t *testing.T, h *Host, sid string) (caps, tools []string) {
	t.Helper()
	if _, err := h.OpenSession(context.Background(), sid); err != nil {
		t.Fatal(err)
	}
	defer h.CloseSession(context.Background(), sid)
	for _, c := range h.Registry.Visible(ext.Scope{SessionID: sid}) {
		caps = append(caps, c.Name())
		if tp, ok := c.(ext.ToolProvider); ok {
			ts, _ := tp.Tools(context.Background())
			for _, e := range ts {
				tools = append(tools, e.Name)
			}
		}
	}
	return caps, tools
}

func exists(path string) bool { _, err := os.Stat(path); return err == nil }

// An untrusted project's skills are discovered but in no view and start nothing; once trusted
// they are the host's skills (scanned under the project's roots) and their servers start; a
// changed command is untrusted again.
func TestProjectTrust(t *testing.T) {
	bin := testserver.Build(t)
	project, home := t.TempDir(), t.TempDir()
	marker := filepath.Join(t.TempDir(), "MARKER")
	markerSkill(t, filepath.Join(project, ".agents/skills"), "proj", marker, bin)
	store := trust.NewStore(filepath.Join(t.TempDir(), "trust.json"))
	opts := Options{ProjectDir: project, HomeDir: home, Trust: store}

	h := buildHost(t, "", "sandbox: off\n", opts)
	if h.Current().Project == nil || h.Current().Project.Trusted() || h.Current().Project.Verdict.Status != trust.Untrusted {
		t.Fatalf("project: %+v, want untrusted", h.Current().Project)
	}
	if n := len(h.Current().Project.Skills.Skills()); n != 1 {
		t.Errorf("untrusted project discovered %d skills, want 1 (shown, not used)", n)
	}
	caps, tools := listAll(t, h, "s1")
	if h.Current().Skills.Skill("proj") != nil || slices.Contains(caps, projectSkills) || slices.Contains(tools, "proj__echo") || exists(marker) {
		t.Fatalf("untrusted: capabilities %v, tools %v, marker %v; want no project skill and no marker", caps, tools, exists(marker))
	}

	if err := store.Trust(h.Current().Project.Dir, trust.Digests(h.Current().Project.Decls), time.Now()); err != nil {
		t.Fatal(err)
	}
	h = buildHost(t, "", "sandbox: off\n", opts)
	caps, tools = listAll(t, h, "s2")
	if h.Current().Skills.Skill("proj") == nil || !slices.Contains(tools, "proj__echo") || !exists(marker) {
		t.Fatalf("trusted: capabilities %v, tools %v, marker %v; want the project's skill and its server", caps, tools, exists(marker))
	}
	if root, want := h.Current().Skills.Skill("proj").Root, filepath.Join(h.Current().Project.Dir, ".agents", "skills"); root != want {
		t.Errorf("project skill scanned under %s, want the project's root %s", root, want)
	}
	os.Remove(marker)

	// A changed command: untrusted again, naming what changed.
	markerSkill(t, filepath.Join(project, ".agents/skills"), "proj", marker, bin+" ")
	h = buildHost(t, "", "sandbox: off\n", opts)
	if v := h.Current().Project.Verdict; v.Status != trust.Changed || len(v.New) != 1 || v.New[0].Name != "proj.srv" {
		t.Fatalf("changed: %+v, want Changed naming proj.srv", v)
	}
	if _, tools := listAll(t, h, "s3"); h.Current().Skills.Skill("proj") != nil || slices.Contains(tools, "proj__echo") || exists(marker) {
		t.Fatalf("changed: tools %v, marker %v", tools, exists(marker))
	}

	// TrustProject: trusted for this host only, nothing recorded.
	o2 := opts
	o2.TrustProject = true
	h = buildHost(t, "", "sandbox: off\n", o2)
	if _, tools := listAll(t, h, "s4"); !slices.Contains(tools, "proj__echo") || !exists(marker) {
		t.Fatalf("--trust-project: tools %v, marker %v", tools, exists(marker))
	}
	if v, _ := store.Check(h.Current().Project.Dir, h.Current().Project.Decls); v.Status != trust.Changed {
		t.Errorf("--trust-project recorded something: %v", v.Status)
	}
}

// A server added to a trusted project while the host runs (hot reload) is refused, not started.
func TestProjectReloadRefusesNewServer(t *testing.T) {
	bin := testserver.Build(t)
	project, home := t.TempDir(), t.TempDir()
	marker := filepath.Join(t.TempDir(), "MARKER")
	store := trust.NewStore(filepath.Join(t.TempDir(), "trust.json"))
	writeFile(t, filepath.Join(project, ".agents/skills/plain/SKILL.md"), "---\nname: plain\ndescription: No server.\n---\nBody.\n")
	real, err := trust.RealPath(project)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Trust(real, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	h := buildHost(t, "", "{}", Options{ProjectDir: project, HomeDir: home, Trust: store})
	if !h.Current().Project.Trusted() {
		t.Fatalf("verdict %+v, want trusted", h.Current().Project.Verdict)
	}
	markerSkill(t, filepath.Join(project, ".agents/skills"), "added", marker, bin)
	if err := h.Current().Skills.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := h.OpenSession(context.Background(), "s"); err != nil {
		t.Fatal(err)
	}
	defer h.CloseSession(context.Background(), "s")
	for _, c := range h.Registry.Visible(ext.Scope{SessionID: "s"}) {
		if c.Name() != skillServers {
			continue
		}
		tools, _ := c.(ext.ToolProvider).Tools(context.Background())
		if len(tools) != 0 || exists(marker) {
			t.Fatalf("added server: tools %v, marker %v; want refused", tools, exists(marker))
		}
		var found bool
		for _, d := range c.(*sessionSkills).Diagnostics() {
			found = found || strings.Contains(d.String(), "not trusted")
		}
		if !found {
			t.Errorf("no diagnostic says the added server is not trusted: %v", c.(*sessionSkills).Diagnostics())
		}
		return
	}
	t.Fatal("no skill-servers in the trusted session")
}

// registrationOrigin returns the origin name is registered with at pool scope.
func registrationOrigin(h *Host, name string) ext.Origin {
	for _, r := range h.Registry.Registrations(ext.Scope{}) {
		if r.Capability.Name() == name {
			return r.Origin
		}
	}
	return ext.Origin{}
}

// A trust store that does not parse trusts nothing: the project is untrusted, the error names
// the file; --trust-project still works.
func TestProjectCorruptStore(t *testing.T) {
	project := t.TempDir()
	writeFile(t, filepath.Join(project, ".agents/skills/plain/SKILL.md"), "---\nname: plain\ndescription: No server.\n---\nBody.\n")
	path := filepath.Join(t.TempDir(), "trust.json")
	writeFile(t, path, "{garbage")
	opts := Options{ProjectDir: project, HomeDir: t.TempDir(), Trust: trust.NewStore(path)}
	h := buildHost(t, "", "{}", opts)
	if h.Current().Project.Trusted() || !errors.Is(h.Current().Project.StoreErr, trust.ErrCorrupt) || !strings.Contains(h.Current().Project.StoreErr.Error(), path) {
		t.Fatalf("corrupt store: trusted %v, error %v; want untrusted and ErrCorrupt naming %s", h.Current().Project.Trusted(), h.Current().Project.StoreErr, path)
	}
	opts.TrustProject = true
	if h := buildHost(t, "", "{}", opts); !h.Current().Project.Trusted() {
		t.Errorf("--trust-project with a corrupt store: untrusted")
	}
}

// The home directory is no project: its folders are the user's own, registered once, local.
func TestProjectIsHome(t *testing.T) {
	home := t.TempDir()
	writeFile(t, filepath.Join(home, ".agents/skills/mine/SKILL.md"), "---\nname: mine\ndescription: Mine.\n---\nBody.\n")
	link := filepath.Join(t.TempDir(), "home-link")
	if err := os.Symlink(home, link); err != nil {
		t.Fatal(err)
	}
	h := buildHost(t, "", "{}", Options{ProjectDir: link, HomeDir: home})
	if h.Current().Project != nil {
		t.Fatalf("the home directory (through a link) is a project: %+v", h.Current().Project)
	}
	if s := h.Current().Skills.Skills(); len(s) != 1 || s[0].Name != "mine" {
		t.Errorf("user skills %v, want mine once", s)
	}
	if o := registrationOrigin(h, "skills"); o.Kind != ext.OriginLocal {
		t.Errorf("skills origin %v, want local", o)
	}
}

// A project config that could not be parsed (Options.ProjectConfigErr) leaves an untrusted
// project skipped, the error kept in Project.ConfigErr; trusted (a record, or TrustProject),
// Build fails with it.
func TestProjectConfigErr(t *testing.T) {
	project := t.TempDir()
	writeFile(t, filepath.Join(project, ".agents/skills/plain/SKILL.md"), "---\nname: plain\ndescription: No server.\n---\nBody.\n")
	store := trust.NewStore(filepath.Join(t.TempDir(), "trust.json"))
	bad := errors.New("agentpool.yaml:1:1: broken")
	opts := Options{ProjectDir: project, HomeDir: t.TempDir(), Trust: store, ProjectConfigErr: bad}
	h := buildHost(t, "", "{}", opts)
	if h.Current().Project.Trusted() || !errors.Is(h.Current().Project.ConfigErr, bad) || h.Current().Project.Empty() || !strings.Contains(h.Current().Project.Summary(), "with errors") {
		t.Fatalf("untrusted project with a broken config: trusted %v, ConfigErr %v, summary %q", h.Current().Project.Trusted(), h.Current().Project.ConfigErr, h.Current().Project.Summary())
	}
	for name, o := range map[string]Options{
		"trust-project": func() Options { o := opts; o.TrustProject = true; return o }(),
		"record": func() Options {
			real, _ := trust.RealPath(project)
			if err := store.Trust(real, nil, time.Now()); err != nil {
				t.Fatal(err)
			}
			return opts
		}(),
	} {
		if h, err := Build(context.Background(), &config.Config{}, o); err == nil || !errors.Is(err, bad) {
			if h != nil {
				_ = h.Close(context.Background())
			}
			t.Errorf("%s: Build: %v; want the config error", name, err)
		}
	}
}

// A trusted project's skills join the user's in one catalogue with one load_skill: a model
// must not see two load_skill tools, nor a skill the user's own outranks listed twice.
func TestTrustedProjectOneCatalogue(t *testing.T) {
	project, home := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, ".agents/skills/shared/SKILL.md"), "---\nname: shared\ndescription: The user's own.\n---\nMine.\n")
	writeFile(t, filepath.Join(project, ".agents/skills/shared/SKILL.md"), "---\nname: shared\ndescription: The project's.\n---\nTheirs.\n")
	writeFile(t, filepath.Join(project, ".agents/skills/only/SKILL.md"), "---\nname: only\ndescription: Only in the project.\n---\nOnly.\n")
	h := buildHost(t, "", "{}", Options{ProjectDir: project, HomeDir: home, TrustProject: true})
	if _, err := h.OpenSession(context.Background(), "s"); err != nil {
		t.Fatal(err)
	}
	defer h.CloseSession(context.Background(), "s")
	v, err := view.Compile(context.Background(), h.Registry, ext.Scope{SessionID: "s"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var loaders []string
	for _, tool := range v.Tools {
		if strings.HasSuffix(tool.Name, "load_skill") {
			loaders = append(loaders, tool.Name)
		}
	}
	if len(loaders) != 1 {
		t.Errorf("load_skill tools %v, want exactly one", loaders)
	}
	if n := strings.Count(v.Instructions.Static, "<name>shared</name>"); n != 1 || strings.Contains(v.Instructions.Static, "The project's.") {
		t.Errorf("catalogue lists shared %d times (want once, the user's):\n%s", n, v.Instructions.Static)
	}
	if !strings.Contains(v.Instructions.Static, "<name>only</name>") {
		t.Errorf("catalogue lacks the project's skill only:\n%s", v.Instructions.Static)
	}
	res, err := v.CallTool(context.Background(), &ext.ToolCall{Name: "load_skill", Arguments: json.RawMessage(`{"name": "only"}`)})
	if err != nil || res.IsError {
		t.Errorf("load_skill only: %v %+v", err, res)
	}
}

// A project config's server is fingerprinted as written: a ${VAR} it names is the user's
// input, not the project's, so a new value of the variable (a rotated token) does not ask for
// trust again; a changed reference does.
func TestProjectDigestUnexpanded(t *testing.T) {
	project, home := t.TempDir(), t.TempDir()
	store := trust.NewStore(filepath.Join(t.TempDir(), "trust.json"))
	write := func(arg string) *config.Config {
		t.Helper()
		path := filepath.Join(project, "agentpool.yaml")
		writeFile(t, path, "mcp_servers:\n  srv:\n    command: /nonexistent/server\n    args: [\"--token\", \""+arg+"\"]\n    lazy: true\n    tools: [{name: t}]\n")
		cfg, err := config.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	inspect := func(cfg *config.Config) *Project {
		t.Helper()
		p, err := InspectProject(ProjectOptions{Dir: project, HomeDir: home, Config: cfg, Store: store})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close(context.Background()) })
		return p
	}
	t.Setenv("AGENTPOOL_TEST_TOKEN", "first")
	p := inspect(write("${AGENTPOOL_TEST_TOKEN}"))
	if err := store.Trust(p.Dir, trust.Digests(p.Decls), time.Now()); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AGENTPOOL_TEST_TOKEN", "rotated")
	if p := inspect(write("${AGENTPOOL_TEST_TOKEN}")); !p.Trusted() {
		t.Errorf("a rotated variable asks for trust again: %+v", p.Verdict)
	}
	for _, d := range inspect(write("${AGENTPOOL_TEST_TOKEN}")).Decls {
		if slices.Contains(d.Args, "rotated") {
			t.Errorf("declaration holds the variable's value: %v", d.Args)
		}
	}
	if p := inspect(write("${AGENTPOOL_OTHER_TOKEN:-x}")); p.Trusted() {
		t.Error("a changed reference is still trusted")
	}
}

// Project.Shadowed names a trusted project's server that one of the user's outranks, whether
// or not the host watches (a watching host inspects the project a second time).
func TestShadowedWhenWatching(t *testing.T) {
	project, home := t.TempDir(), t.TempDir()
	pc, err := config.Parse(filepath.Join(project, "agentpool.yaml"), []byte("mcp_servers:\n  mine:\n    command: /nonexistent/theirs\n    lazy: true\n    tools: [{name: t, description: Theirs.}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	user := "mcp_servers:\n  mine:\n    command: /nonexistent/mine\n    lazy: true\n    tools: [{name: t, description: Mine.}]\n"
	for _, watch := range []bool{false, true} {
		h := buildHost(t, "", user, Options{ProjectDir: project, HomeDir: home, TrustProject: true, ProjectConfig: pc, NoWatch: !watch})
		if got := h.Current().Project.Shadowed; !slices.Equal(got, []string{"mine"}) {
			t.Errorf("watch %v: Shadowed %v, want [mine]", watch, got)
		}
	}
}

// A trusted project's server cannot take a tool name from one of the user's servers (here by
// a prefix that lists its tools under the user's server's names): the user's keep theirs, as
// they keep a server name both use.
func TestProjectServerCannotTakeUserToolName(t *testing.T) {
	project, home := t.TempDir(), t.TempDir()
	pc, err := config.Parse(filepath.Join(project, "agentpool.yaml"), []byte("mcp_servers:\n  aaa:\n    command: /nonexistent/theirs\n    prefix: mine__\n    lazy: true\n    tools: [{name: t, description: Theirs.}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	user := "mcp_servers:\n  mine:\n    command: /nonexistent/mine\n    lazy: true\n    tools: [{name: t, description: Mine.}]\n"
	h := buildHost(t, "", user, Options{ProjectDir: project, HomeDir: home, TrustProject: true, ProjectConfig: pc})
	v, err := view.Compile(context.Background(), h.Registry, ext.Scope{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tool, ok := v.Tool("mine__t"); !ok || tool.Capability != "mine" {
		t.Errorf("mine__t is served by %q, want the user's server mine (collisions %v)", tool.Capability, v.Collisions)
	}
}

// A skill the host finds under one of the user's roots is the user's, even when a trusted
// project's agentpool.yaml names that folder too: its server, added after the project was
// trusted, starts (the project's digests are for the project's skills).
func TestUserSkillUnderProjectNamedRoot(t *testing.T) {
	bin := testserver.Build(t)
	project, home := t.TempDir(), t.TempDir()
	marker := filepath.Join(t.TempDir(), "MARKER")
	userRoot := filepath.Join(home, ".agents", "skills")
	writeFile(t, filepath.Join(userRoot, "plain/SKILL.md"), "---\nname: plain\ndescription: No server.\n---\nBody.\n")
	pc, err := config.Parse(filepath.Join(project, "agentpool.yaml"), []byte("skills:\n  dirs: ["+userRoot+"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	h := buildHost(t, "", "{}", Options{ProjectDir: project, HomeDir: home, TrustProject: true, ProjectConfig: pc})
	markerSkill(t, filepath.Join(home, ".agents/skills"), "mine", marker, bin) // under the user's ~/.agents/skills
	if err := h.Current().Skills.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, tools := listAll(t, h, "s"); !slices.Contains(tools, "mine__echo") || !exists(marker) {
		t.Errorf("the user's own skill's server: tools %v, marker %v; want it started\n%v", tools, exists(marker), h.Current().Skills.Diagnostics())
	}
}

// The project is inspected (its servers fingerprinted) with the bounds the host's skill
// manager scans it with: a skill the manager finds past the default folder budget, under the
// user's larger skills.max_folders, was trusted with the project, and its server starts.
func TestProjectInspectedWithUserBounds(t *testing.T) {
	bin := testserver.Build(t)
	project, home := t.TempDir(), t.TempDir()
	marker := filepath.Join(t.TempDir(), "MARKER")
	for i := range 2100 {
		if err := os.MkdirAll(filepath.Join(project, ".agents/skills", fmt.Sprintf("a%04d", i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	markerSkill(t, filepath.Join(project, ".agents/skills"), "zz", marker, bin)
	// sandbox: off: the server is a shell wrapper that touches a file outside the project,
	// which the project's default sandbox would refuse.
	h := buildHost(t, "", "skills:\n  max_folders: 5000\nsandbox: off\n", Options{ProjectDir: project, HomeDir: home, TrustProject: true})
	if _, tools := listAll(t, h, "s"); !slices.Contains(tools, "zz__echo") || !exists(marker) {
		t.Errorf("tools %v, marker %v; want the trusted project's zz server started", tools, exists(marker))
	}
}

// An untrusted project's config is listed, not followed outside the project: its skills.dirs,
// commands.dirs, plugins.dirs and marketplaces there are not read (Unscanned names each);
// trusted, or with ScanAll (agentpool trust), they are.
func TestUntrustedProjectConfigPathsOutside(t *testing.T) {
	proj, outside := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(outside, "skills/far/SKILL.md"), "---\nname: far\ndescription: Far away.\n---\nBody.\n")
	writeFile(t, filepath.Join(outside, "commands/far.md"), "Far command.\n")
	writeClaudePlugin(t, filepath.Join(outside, "plug"), "farplug", "")
	writeClaudePlugin(t, filepath.Join(proj, "near"), "nearplug", "")
	writeFile(t, filepath.Join(proj, "agentpool.yaml"), fmt.Sprintf("skills: {dirs: [%s]}\ncommands: {dirs: [%s]}\nplugins: {dirs: [%s, ./near], marketplaces: [{path: %s}]}\n",
		filepath.Join(outside, "skills"), filepath.Join(outside, "commands"), filepath.Join(outside, "plug"), outside))
	pc, err := config.Load(filepath.Join(proj, "agentpool.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	inspectEach(t, proj, pc, withTrusted, func(t *testing.T, c projectCase, p *Project) {
		cmds, _ := p.Commands.ListCommands(context.Background())
		var plugins []string
		for _, pi := range p.Plugins.List {
			plugins = append(plugins, pi.Name)
		}
		read := p.Skills.Skill("far") != nil || len(cmds) > 0 || slices.Contains(plugins, "farplug")
		unscanned := 0
		if !c.reads {
			unscanned = 4
		}
		if read != c.reads || len(p.Unscanned) != unscanned || !slices.Contains(plugins, "nearplug") {
			t.Errorf("far read %v, plugins %v, unscanned %q", read, plugins, p.Unscanned)
		}
	})
}

// A project's conventional folders that are symlinks out of it (.claude/commands → a folder
// elsewhere, .agents → another) are not read while it is untrusted, as its config's folders
// outside it are not; trusted, or with ScanAll, they are.
func TestUntrustedProjectDefaultRootsLinkedOutside(t *testing.T) {
	proj, outside := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(outside, "skills/far/SKILL.md"), "---\nname: far\ndescription: Far away.\n---\nBody.\n")
	writeFile(t, filepath.Join(outside, "commands/far.md"), "Far command.\n")
	writeFile(t, filepath.Join(proj, ".claude/skills/near/SKILL.md"), "---\nname: near\ndescription: Near.\n---\nBody.\n")
	if err := os.Symlink(filepath.Join(outside, "commands"), filepath.Join(proj, ".claude", "commands")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(proj, ".agents")); err != nil {
		t.Fatal(err)
	}
	inspectEach(t, proj, nil, withTrusted, func(t *testing.T, c projectCase, p *Project) {
		cmds, _ := p.Commands.ListCommands(context.Background())
		if read := p.Skills.Skill("far") != nil || len(cmds) > 0; read != c.reads || p.Skills.Skill("near") == nil {
			t.Errorf("far read %v (want %v), commands %v, near %v", read, c.reads, cmds, p.Skills.Skill("near") != nil)
		}
	})
}

// The skills of a plugin inside an untrusted project are read for their servers only inside
// the project: a plugin's skill folder that links out of it is not read (its servers are no
// declaration), as the project's own skill folders are not; with ScanAll it is.
func TestUntrustedProjectPluginSkillLinkedOutside(t *testing.T) {
	proj, outside := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(outside, "far/SKILL.md"), "---\nname: far\ndescription: Far.\nmcp-servers:\n  srv: {command: farcmd}\n---\nBody.\n")
	writeClaudePlugin(t, filepath.Join(proj, "near"), "nearplug", "", "own")
	if err := os.Symlink(filepath.Join(outside, "far"), filepath.Join(proj, "near", "skills", "far")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(proj, "agentpool.yaml"), "plugins: {dirs: [./near]}\n")
	pc, err := config.Load(filepath.Join(proj, "agentpool.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	inspectEach(t, proj, pc, untrustedAndScanAll, func(t *testing.T, c projectCase, p *Project) {
		read := slices.ContainsFunc(p.Decls, func(d trust.Decl) bool { return d.Command == "farcmd" })
		if read != c.reads {
			t.Errorf("the linked plugin skill's server declared %v, want %v: %v", read, c.reads, p.Decls)
		}
	})
}

// A marketplace file inside an untrusted project whose marketplace folder is not (the project
// is itself a folder named .claude-plugin, whose parent is the marketplace's root) lists
// plugins outside the project: it is not read, and Unscanned names it; with ScanAll it is.
func TestUntrustedProjectMarketplaceRootOutside(t *testing.T) {
	parent := t.TempDir()
	proj := filepath.Join(parent, ".claude-plugin")
	writeClaudePlugin(t, filepath.Join(parent, "victim"), "victim", "")
	writeFile(t, filepath.Join(proj, "marketplace.json"), `{"name": "m", "plugins": [{"name": "victim", "source": "./victim"}]}`)
	writeFile(t, filepath.Join(proj, "agentpool.yaml"), "plugins: {marketplaces: [{path: ./marketplace.json, enable: [\"*\"]}]}\n")
	pc, err := config.Load(filepath.Join(proj, "agentpool.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	inspectEach(t, proj, pc, untrustedAndScanAll, func(t *testing.T, c projectCase, p *Project) {
		read := p.Plugins.Get("victim") != nil
		if read != c.reads || !read && len(p.Unscanned) != 1 {
			t.Errorf("the plugin outside the project read %v, want %v; unscanned %q", read, c.reads, p.Unscanned)
		}
	})
}

// An untrusted project's agentpool.yaml that is a symlink out of the project is not read (it
// is the project's problem, ConfigErr, naming the link); trusted, it is read where it leads.
func TestUntrustedProjectConfigLinkedOutside(t *testing.T) {
	proj, outside := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(outside, "agentpool.yaml"), "mcp_servers: {far: {command: farcmd}}\n")
	path := filepath.Join(proj, "agentpool.yaml")
	if err := os.Symlink(filepath.Join(outside, "agentpool.yaml"), path); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadProjectConfig(path, proj, nil, false)
	if err == nil || cfg != nil || !strings.Contains(err.Error(), path) {
		t.Errorf("untrusted: config %v, err %v; want it not read, the error naming %s", cfg, err, path)
	}
	cfg, err = LoadProjectConfig(path, proj, nil, true)
	if err != nil || cfg.MCPServers["far"].Command != "farcmd" {
		t.Errorf("trusted: config %v, err %v; want the linked file read", cfg, err)
	}
}

// projectCase is one way to inspect a project, and whether it reads what lies outside it.
type projectCase struct {
	name  string
	opts  ProjectOptions
	reads bool
}

var (
	untrustedAndScanAll = []projectCase{{"untrusted", ProjectOptions{}, false}, {"scan all", ProjectOptions{ScanAll: true}, true}}
	withTrusted         = []projectCase{{"untrusted", ProjectOptions{}, false}, {"trusted", ProjectOptions{Trust: true}, true}, {"scan all", ProjectOptions{ScanAll: true}, true}}
)

// inspectEach inspects proj (with pc as its config; nil: its conventional folders) in each
// of cases, as a subtest, and hands check the project.
func inspectEach(t *testing.T, proj string, pc *config.Config, cases []projectCase, check func(*testing.T, projectCase, *Project)) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := c.opts
			o.Dir, o.Config, o.DefaultRoots = proj, pc, pc == nil
			p, err := InspectProject(o)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close(context.Background())
			check(t, c, p)
		})
	}
}

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/plugin"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// writePlugin writes a plugin named name at dir in the format given ("claude" or "codex"):
// a skill configure, a command file hello.md, an agent file, a hook, and (command not "") an
// .mcp.json declaring server "srv" running command with args.
func writePlugin(t *testing.T, dir, format, name, command string, args ...string) {
	t.Helper()
	manifest := map[string]string{"claude": ".claude-plugin", "codex": ".codex-plugin"}[format]
	writeFile(t, filepath.Join(dir, manifest, "plugin.json"),
		fmt.Sprintf(`{"name": %q, "version": "0.1.0", "description": "the %s plugin", "author": {"name": "tests"}}`, name, name))
	writeFile(t, filepath.Join(dir, "skills", "configure", "SKILL.md"), "---\nname: configure\ndescription: configures "+name+"\n---\nConfigure "+name+".\n")
	writeFile(t, filepath.Join(dir, "commands", "hello.md"), "---\ndescription: says hello\n---\nHello from "+name+": $ARGUMENTS\n")
	writeFile(t, filepath.Join(dir, "agents", "reviewer.md"), "---\nname: reviewer\ndescription: reviews\n---\nReview.\n")
	writeFile(t, filepath.Join(dir, "hooks", "hooks.json"), `{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "touch /tmp/never"}]}]}}`)
	if command != "" {
		decl, err := json.Marshal(map[string]any{"mcpServers": map[string]any{"srv": map[string]any{"command": command, "args": args}}})
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, ".mcp.json"), string(decl))
	}
}

// pluginEnv returns an environment whose HOME and XDG_CONFIG_HOME are folders of dir, so
// the plugin state file is the test's own.
func pluginEnv(dir string) []string {
	return append(os.Environ(), "HOME="+filepath.Join(dir, "home"), "XDG_CONFIG_HOME="+filepath.Join(dir, "xdg"), "CODEX_HOME=")
}

// runPlugins runs the agentpool binary with env and args and returns its stdout, failing on a
// non-zero exit.
func runPlugins(t *testing.T, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("agentpool", args...)
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("agentpool %s: %v\n%s", strings.Join(args, " "), err, ee.Stderr)
		}
		t.Fatal(err)
	}
	return string(out)
}

// TestPluginsDisableWhileServing: a plugin in both formats is served (its tools, its skills
// and commands as prompts, its skill files as resources); `agentpool plugins disable`
// while serving takes them from the connected session, which is told list_changed, and
// stops the plugin's server process.
func TestPluginsDisableWhileServing(t *testing.T) {
	t.Parallel()
	bin := testserver.Build(t)
	dir := t.TempDir()
	writePlugin(t, filepath.Join(dir, "cc"), "claude", "cc", bin, "--log", "${CLAUDE_PLUGIN_ROOT}/calls.log")
	writePlugin(t, filepath.Join(dir, "cx"), "codex", "cx", everythingServer(t), "stdio")
	cfg := filepath.Join(dir, "agentpool.yaml")
	writeFile(t, cfg, "plugins:\n  dirs: [./cc, ./cx]\n")
	env := pluginEnv(dir)

	cmd := exec.Command("agentpool", "--config", cfg, "--no-default-roots", "serve", "--http", "127.0.0.1:0")
	cmd.Env = env
	url := startServeCmd(t, cmd)

	changed := make(chan string, 64)
	note := func(kind string) {
		select {
		case changed <- kind:
		default:
		}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) { note("tools") },
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { note("prompts") },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { note("resources") },
	})
	ctx := context.Background()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	tools, prompts, resources := listAll(t, cs)
	for _, want := range []string{"cc_srv__echo", "cc_srv__pid", "cx_srv__echo"} {
		if !slices.Contains(tools, want) {
			t.Errorf("tools %v lack %s", tools, want)
		}
	}
	for _, want := range []string{"cc:configure", "cc:hello", "cx:configure", "cx:hello"} {
		if !slices.Contains(prompts, want) {
			t.Errorf("prompts %v lack %s", prompts, want)
		}
	}
	for _, want := range []string{"skill://cc/configure/SKILL.md", "skill://cx/configure/SKILL.md"} {
		if !slices.Contains(resources, want) {
			t.Errorf("resources %v lack %s", resources, want)
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "cc_srv__pid", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("cc_srv__pid: %v %+v", err, res)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(res.Content[0].(*mcp.TextContent).Text))
	if err != nil {
		t.Fatal(err)
	}
	got, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "cc:hello", Arguments: map[string]string{"arguments": "world"}})
	if err != nil || len(got.Messages) == 0 || !strings.Contains(got.Messages[0].Content.(*mcp.TextContent).Text, "Hello from cc") {
		t.Errorf("prompts/get cc:hello: %v %+v", err, got)
	}

	status := strings.TrimSuffix(url, "/mcp") + "/"
	if page := httpGet(t, status); !strings.Contains(page, "<code>cc</code>") || !strings.Contains(page, "cc.srv") {
		t.Errorf("the status page does not list plugin cc and its server:\n%s", grepLines(page, "plugin"))
	}

	out := runPlugins(t, env, "--config", cfg, "plugins", "disable", "cc")
	if !strings.Contains(out, "disabled") {
		t.Errorf("plugins disable said %q", out)
	}
	waitReload(t, "the disabled plugin's tools, prompts and resources gone", func() bool {
		tools, prompts, resources := listAll(t, cs)
		return !slices.ContainsFunc(tools, func(s string) bool { return strings.HasPrefix(s, "cc_") }) &&
			!slices.ContainsFunc(prompts, func(s string) bool { return strings.HasPrefix(s, "cc:") }) &&
			!slices.ContainsFunc(resources, func(s string) bool { return strings.HasPrefix(s, "skill://cc/") }) &&
			slices.Contains(prompts, "cx:configure") && slices.Contains(tools, "cx_srv__echo")
	})
	seen := map[string]bool{}
	waitReload(t, "tools, prompts and resources list_changed", func() bool {
		for {
			select {
			case k := <-changed:
				seen[k] = true
				continue
			default:
			}
			return seen["tools"] && seen["prompts"] && seen["resources"]
		}
	})
	waitReload(t, fmt.Sprintf("the plugin's server (pid %d) ended", pid), func() bool {
		return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
	})
	if page := httpGet(t, status); !strings.Contains(page, `<span class="muted">disabled</span>`) {
		t.Errorf("the status page does not show cc disabled:\n%s", grepLines(page, "plugin"))
	}
}

// listAll lists the session's tool names, prompt names and resource URIs.
func listAll(t *testing.T, cs *mcp.ClientSession) (tools, prompts, resources []string) {
	t.Helper()
	ctx := context.Background()
	tl, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range tl.Tools {
		tools = append(tools, x.Name)
	}
	pl, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range pl.Prompts {
		prompts = append(prompts, x.Name)
	}
	rl, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range rl.Resources {
		resources = append(resources, x.URI)
	}
	return tools, prompts, resources
}

// TestPluginsListAndCompile: `plugins list --json` shows a marketplace's three local plugins
// (two with a skill configure, qualified apart, a user skill configure keeping its bare name
// in compile), what a plugin holds but does not run (agents, hooks), a GitHub entry as not
// installed with the command that would fetch it, and every bad input as a diagnostic naming
// its file while the rest still loads; enable and disable switch a plugin and refuse an
// unknown name.
func TestPluginsListAndCompile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mkt := filepath.Join(dir, "mkt")
	for _, n := range []string{"a", "b", "c"} {
		writePlugin(t, filepath.Join(mkt, "plugins", n), "claude", n, "")
	}
	// Bad inputs, each next to good plugins: a manifest with wrong types, an entry leaving
	// the marketplace, an .mcp.json with an unknown server type, a symlink loop.
	writeFile(t, filepath.Join(mkt, "plugins", "wrong", ".claude-plugin", "plugin.json"), `{"name": 7, "skills": {"x": 1}, "author": 3}`)
	writeFile(t, filepath.Join(mkt, "plugins", "c", ".mcp.json"), `{"mcpServers": {"odd": {"type": "carrier-pigeon", "url": "http://127.0.0.1:1/"}}}`)
	if err := os.Symlink("loop", filepath.Join(mkt, "plugins", "loop")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(mkt, ".claude-plugin", "marketplace.json"), `{"name": "demo", "owner": {"name": "us"}, "plugins": [
  {"name": "a", "source": "./plugins/a"},
  {"name": "b", "source": "./plugins/b"},
  {"name": "c", "source": "./plugins/c"},
  {"name": "wrong", "source": "./plugins/wrong"},
  {"name": "escape", "source": "../../etc"},
  {"name": "loop", "source": "./plugins/loop"},
  {"name": "far", "source": {"source": "github", "repo": "example/far"}}]}`)
	writeFile(t, filepath.Join(dir, "skills", "configure", "SKILL.md"), "---\nname: configure\ndescription: mine\n---\nMine.\n")
	cfg := filepath.Join(dir, "agentpool.yaml")
	writeFile(t, cfg, "skills: {dirs: [./skills]}\nplugins:\n  marketplaces:\n    - {path: ./mkt, enable: [a, b, c, wrong]}\n")
	env := pluginEnv(dir)

	var l pluginsListing
	if err := json.Unmarshal([]byte(runPlugins(t, env, "--config", cfg, "plugins", "list", "--json")), &l); err != nil {
		t.Fatal(err)
	}
	byName := map[string]pluginView{}
	for _, p := range l.Plugins {
		byName[p.Name] = p
	}
	for _, n := range []string{"a", "b"} {
		p := byName[n]
		if !p.Used || !slices.Equal(p.Skills, []string{n + ":configure"}) || !slices.Equal(p.Commands, []string{"/" + n + ":hello"}) ||
			len(p.Agents) != 1 || len(p.Hooks) != 1 {
			t.Errorf("plugin %s: %+v", n, p)
		}
	}
	all, _ := json.Marshal(l)
	text := string(all)
	for _, want := range []string{
		filepath.Join(mkt, "plugins", "wrong", ".claude-plugin", "plugin.json"), // wrong types
		filepath.Join(mkt, "plugins", "c", ".mcp.json"),                         // unknown server type
		"../../etc", // leaves the marketplace
		filepath.Join(mkt, ".claude-plugin", "marketplace.json"), // names the marketplace file
		"loop",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the listing does not mention %s:\n%s", want, text)
		}
	}
	if !slices.ContainsFunc(l.NotInstalled, func(e plugin.Entry) bool { return e.Name == "far" && e.Fetch != "" }) {
		t.Errorf("not installed %+v: want far with a fetch command", l.NotInstalled)
	}

	var v compiledView
	if err := json.Unmarshal([]byte(runPlugins(t, env, "--config", cfg, "--no-default-roots", "compile", "--json")), &v); err != nil {
		t.Fatal(err)
	}
	var commands []string
	for _, c := range v.Commands {
		commands = append(commands, c.Name)
	}
	// Skills are commands too: each plugin's configure apart, the user's keeping its bare name.
	for _, want := range []string{"a:configure", "b:configure", "c:configure", "configure", "a:hello"} {
		if !slices.Contains(commands, want) {
			t.Errorf("compile's commands %v lack %s", commands, want)
		}
	}
	if len(v.Collisions) > 0 {
		t.Errorf("compile reported collisions %+v", v.Collisions)
	}

	runPlugins(t, env, "--config", cfg, "plugins", "disable", "b")
	if err := json.Unmarshal([]byte(runPlugins(t, env, "--config", cfg, "plugins", "list", "--json")), &l); err != nil {
		t.Fatal(err)
	}
	for _, p := range l.Plugins {
		if p.Name == "b" && (p.Enabled || p.Used) {
			t.Errorf("b after disable: %+v", p)
		}
	}
	cmd := exec.Command("agentpool", "--config", cfg, "plugins", "enable", "nosuch")
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), `no plugin "nosuch"`) {
		t.Errorf("enable nosuch: %v %s", err, out)
	}
}

// pluginsListIn runs `agentpool plugins list --json` with args in the folder dir.
func pluginsListIn(t *testing.T, env []string, dir string, args ...string) map[string]pluginView {
	t.Helper()
	cmd := exec.Command("agentpool", append(args, "plugins", "list", "--json")...)
	cmd.Env, cmd.Dir = env, dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("plugins list: %v %s", err, out)
	}
	var l pluginsListing
	if err := json.Unmarshal(out, &l); err != nil {
		t.Fatal(err)
	}
	byName := map[string]pluginView{}
	for _, p := range l.Plugins {
		if _, dup := byName[p.Name]; dup {
			p.Name += " (2)"
		}
		byName[p.Name] = p
	}
	return byName
}

// TestPluginsListProjectPlugin: `plugins list` shows a project's plugin as the host uses it:
// not used when one of the user's own has its name (saying why), and disabled when the user
// disabled it.
func TestPluginsListProjectPlugin(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	proj := filepath.Join(dir, "proj")
	writePlugin(t, filepath.Join(proj, "plug"), "claude", "p", "")
	writeFile(t, filepath.Join(proj, "agentpool.yaml"), "plugins: {dirs: [./plug]}\n")
	writePlugin(t, filepath.Join(dir, "mine"), "claude", "p", "")
	cfg := filepath.Join(dir, "xdg", "agentpool", "agentpool.yaml") // the user's: a project is read
	writeFile(t, cfg, fmt.Sprintf("plugins: {dirs: [%q]}\n", filepath.Join(dir, "mine")))
	env := pluginEnv(dir)

	l := pluginsListIn(t, env, proj, "--trust-project")
	if p := l["p (2)"]; p.Source != "project" || p.Used || len(p.Problems) == 0 {
		t.Errorf("the project's plugin p %+v: want not used, with a problem saying why (the user has a p)", p)
	}

	writeFile(t, cfg, "{}\n")
	disable := exec.Command("agentpool", "plugins", "disable", "p")
	disable.Env, disable.Dir = env, proj
	if out, err := disable.CombinedOutput(); err != nil {
		t.Fatalf("plugins disable p: %v %s", err, out)
	}
	l = pluginsListIn(t, env, proj, "--trust-project")
	if p := l["p"]; p.Source != "project" || p.Enabled || p.Used {
		t.Errorf("the project's plugin p after plugins disable p: %+v, want disabled", p)
	}
}

// TestPluginsServeFollowsNewParts: serve follows a plugin's folder as it does a skill root:
// an .mcp.json or a commands/ folder added to a plugin that had none while serving brings its
// server's tools and its commands, as an edit of one it had would.
func TestPluginsServeFollowsNewParts(t *testing.T) {
	t.Parallel()
	bin := testserver.Build(t)
	dir := t.TempDir()
	plug := filepath.Join(dir, "cc")
	writeFile(t, filepath.Join(plug, ".claude-plugin", "plugin.json"), `{"name": "cc"}`)
	writeFile(t, filepath.Join(plug, "skills", "configure", "SKILL.md"), "---\nname: configure\ndescription: configures\n---\nConfigure.\n")
	cfg := filepath.Join(dir, "agentpool.yaml")
	writeFile(t, cfg, "plugins:\n  dirs: [./cc]\n")
	env := pluginEnv(dir)

	cmd := exec.Command("agentpool", "--config", cfg, "--no-default-roots", "serve", "--http", "127.0.0.1:0")
	cmd.Env = env
	url := startServeCmd(t, cmd)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, prompts, _ := listAll(t, cs); !slices.Contains(prompts, "cc:configure") {
		t.Fatalf("prompts %v lack cc:configure", prompts)
	}

	writeFile(t, filepath.Join(plug, ".mcp.json"), fmt.Sprintf(`{"mcpServers": {"srv": {"command": %q}}}`, bin))
	writeFile(t, filepath.Join(plug, "commands", "hello.md"), "---\ndescription: says hello\n---\nHello.\n")
	waitReload(t, "the added .mcp.json's server and commands/ folder served", func() bool {
		tools, prompts, _ := listAll(t, cs)
		return slices.Contains(tools, "cc_srv__echo") && slices.Contains(prompts, "cc:hello")
	})
}

// TestPluginsSwitchNoChange: `plugins enable` of a plugin already enabled (or `disable` of
// one already disabled) says so and writes no state: a choice recorded for nothing would
// outlive a later change of the config (the plugin taken out of a marketplace's enable).
func TestPluginsSwitchNoChange(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writePlugin(t, filepath.Join(dir, "on"), "claude", "on", "")
	mkt := filepath.Join(dir, "mkt")
	writePlugin(t, filepath.Join(mkt, "plugins", "off"), "claude", "off", "")
	writeFile(t, filepath.Join(mkt, ".claude-plugin", "marketplace.json"), `{"name": "m", "owner": {"name": "us"}, "plugins": [{"name": "off", "source": "./plugins/off"}]}`)
	cfg := filepath.Join(dir, "agentpool.yaml")
	writeFile(t, cfg, "plugins:\n  dirs: [./on]\n  marketplaces: [{path: ./mkt}]\n")
	env := pluginEnv(dir)
	state := filepath.Join(dir, "xdg", "agentpool", "plugins.json")

	for _, args := range [][]string{{"enable", "on"}, {"disable", "off"}} {
		out := runPlugins(t, env, append([]string{"--config", cfg, "plugins"}, args...)...)
		if !strings.Contains(out, "already") {
			t.Errorf("plugins %s said %q, want that it is already so", strings.Join(args, " "), out)
		}
		if _, err := os.Stat(state); err == nil {
			data, _ := os.ReadFile(state)
			t.Fatalf("plugins %s wrote the state though nothing changes:\n%s", strings.Join(args, " "), data)
		}
	}
	if out := runPlugins(t, env, "--config", cfg, "plugins", "disable", "on"); !strings.Contains(out, "disabled") {
		t.Errorf("plugins disable on said %q", out)
	}
	if _, err := os.Stat(state); err != nil {
		t.Errorf("plugins disable on wrote no state: %v", err)
	}
}

// TestPluginsListEscapesControls: `plugins list` prints no control character a hostile
// manifest holds (its description included): each is escaped, as every other cell is.
func TestPluginsListEscapesControls(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "evil", ".claude-plugin", "plugin.json"),
		`{"name": "evil", "version": "1\u001b[2J", "description": "harmless\u001b]0;owned\u0007 \u001b[31mred"}`)
	cfg := filepath.Join(dir, "agentpool.yaml")
	writeFile(t, cfg, "plugins: {dirs: [./evil]}\n")
	out := runPlugins(t, pluginEnv(dir), "--config", cfg, "plugins", "list")
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Errorf("plugins list printed control characters: %q", out)
	}
	if !strings.Contains(out, "harmless") {
		t.Errorf("plugins list lost the description: %q", out)
	}
}

// TestPluginCatalogProblemsSaid: a problem of the plugins section that belongs to no loaded
// plugin — a plugins.dirs entry that does not exist, a marketplace file that does not parse, a
// name to enable that a marketplace does not list —
// is said on stderr by every command, as a used plugin's problems are, not only by plugins list.
func TestPluginCatalogProblemsSaid(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "mkt", ".claude-plugin", "marketplace.json"), `{"name": "m", "plugins": [`)
	writePlugin(t, filepath.Join(dir, "good", "plugins", "a"), "claude", "a", "")
	writeFile(t, filepath.Join(dir, "good", ".claude-plugin", "marketplace.json"), `{"name": "g", "owner": {"name": "us"}, "plugins": [{"name": "a", "source": "./plugins/a"}]}`)
	cfg := filepath.Join(dir, "agentpool.yaml")
	writeFile(t, cfg, "plugins:\n  dirs: [./typo]\n  marketplaces: [{path: ./mkt, enable: [\"*\"]}, {path: ./good, enable: [a, nosuch]}]\n")
	cmd := exec.Command("agentpool", "--config", cfg, "--no-default-roots", "compile")
	cmd.Env = pluginEnv(dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("compile: %v\n%s", err, out)
	}
	for _, want := range []string{filepath.Join(dir, "typo"), filepath.Join(dir, "mkt", ".claude-plugin", "marketplace.json"), `"nosuch"`} {
		if !strings.Contains(string(out), "agentpool: plugins: ") || !strings.Contains(string(out), want) {
			t.Errorf("compile did not say what is wrong with %s:\n%s", want, out)
		}
	}
}

// Two marketplaces listing a plugin of one name: plugins list shows both, the later named
// after its marketplace with its servers so named, and says why on it.
func TestPluginsListSameNameTwoMarketplaces(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, err := filepath.Abs(filepath.Join("..", "..", "plugin", "testdata", "market-a"))
	if err != nil {
		t.Fatal(err)
	}
	b := filepath.Join(filepath.Dir(a), "market-b")
	cfg := filepath.Join(dir, "agentpool.yaml")
	writeFile(t, cfg, "plugins:\n  marketplaces:\n    - {path: "+a+", enable: [github]}\n    - {path: "+b+", enable: [github]}\n")
	var l struct {
		Plugins []struct {
			Name        string
			Used        bool
			Servers     []string
			Diagnostics []struct{ Message string }
		}
	}
	if err := json.Unmarshal([]byte(runPlugins(t, pluginEnv(dir), "--config", cfg, "plugins", "list", "--json")), &l); err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, p := range l.Plugins {
		if p.Used {
			got[p.Name] = p.Servers
		}
	}
	if want := map[string][]string{"github": {"github.api"}, "github-market-b": {"github-market-b.api"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("used plugins and their servers %v, want %v", got, want)
	}
	for _, p := range l.Plugins {
		if p.Name == "github-market-b" && (len(p.Diagnostics) != 1 || !strings.Contains(p.Diagnostics[0].Message, `is named "github-market-b"`)) {
			t.Errorf("github-market-b's diagnostics %+v", p.Diagnostics)
		}
	}
}

// TestPluginsListUntrustedProjectLinksOut: `plugins list` reads an untrusted project's
// plugin only inside the project, as the host does: a skill folder or a command file of the
// plugin that links out of the project is not read (its skill and command are not listed);
// with --trust-project they are.
func TestPluginsListUntrustedProjectLinksOut(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	proj, outside := filepath.Join(dir, "proj"), filepath.Join(dir, "outside")
	writePlugin(t, filepath.Join(proj, "plug"), "claude", "p", "")
	writeFile(t, filepath.Join(outside, "far", "SKILL.md"), "---\nname: far\ndescription: far away\n---\nFar.\n")
	writeFile(t, filepath.Join(outside, "far.md"), "---\ndescription: far away\n---\nFar.\n")
	if err := os.Symlink(filepath.Join(outside, "far"), filepath.Join(proj, "plug", "skills", "far")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(proj, "plug", "commands"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "far.md"), filepath.Join(proj, "plug", "commands", "far.md")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(proj, "agentpool.yaml"), "plugins: {dirs: [./plug]}\n")
	env := pluginEnv(dir)
	for _, c := range []struct {
		args []string
		read bool
	}{{nil, false}, {[]string{"--trust-project"}, true}} {
		p := pluginsListIn(t, env, proj, c.args...)["p"]
		read := slices.Contains(p.Skills, "p:far") || slices.Contains(p.Commands, "/p:far")
		if read != c.read || !slices.Contains(p.Skills, "p:configure") {
			t.Errorf("%v: skills %v, commands %v; want what links out of the project read: %v", c.args, p.Skills, p.Commands, c.read)
		}
	}
}

package plugin

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func names(ps []*Plugin) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return out
}

func diagStrings(ds []Diagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.String())
	}
	return out
}

func TestLoadMarketplaces(t *testing.T) {
	claude, codex := abs(t, "claude-market"), abs(t, "codex-market")
	cfg := Config{
		Dirs: []string{abs(t, "claude/demo")},
		Marketplaces: []MarketplaceConfig{
			{Path: claude, Enable: []string{"alpha", "gamma", "remote"}},
			{Path: filepath.Join(codex, ".agents", "plugins", "marketplace.json"), Enable: []string{"*"}},
		},
		Disable: []string{"gamma"},
	}
	c := Load(cfg, Options{State: State{Enabled: map[string]bool{"beta": true, "alpha": false}}})
	if len(c.Diagnostics) > 0 {
		t.Errorf("diagnostics %q", diagStrings(c.Diagnostics))
	}
	if d := cmp.Diff([]string{"demo", "alpha", "beta", "gamma", "delta"}, names(c.Plugins)); d != "" {
		t.Errorf("plugins (-want +got):\n%s", d)
	}
	// demo: a dir; alpha: enabled by the marketplace, off by the state; beta: not enabled, on
	// by the state; gamma: enabled, then disabled; delta: "*".
	if d := cmp.Diff([]string{"demo", "beta", "delta"}, names(c.Enabled())); d != "" {
		t.Errorf("enabled (-want +got):\n%s", d)
	}
	beta := c.Plugin("beta")
	if beta == nil || beta.Source != "marketplace:team-tools" || beta.Format != FormatNone || beta.Description != "Beta, found through pluginRoot" ||
		beta.Dir != filepath.Join(claude, "plugins", "beta") {
		t.Errorf("beta = %+v", beta)
	}
	if c.Plugin("delta").Source != "marketplace:codex-team" || c.Plugin("demo").Source != "config" || c.Plugin("nope") != nil {
		t.Error("sources or lookup wrong")
	}
	want := []Entry{
		{Name: "alpha", Description: "Alpha", Version: "1.0.0", Marketplace: "team-tools", Dir: filepath.Join(claude, "plugins", "alpha"), Source: "./plugins/alpha", Loaded: true},
		{Name: "beta", Description: "Beta, found through pluginRoot", Marketplace: "team-tools", Dir: filepath.Join(claude, "plugins", "beta"), Source: "beta", Enabled: true, Loaded: true},
		{Name: "gamma", Description: "Gamma, without a manifest", Marketplace: "team-tools", Dir: filepath.Join(claude, "plugins", "gamma"), Source: "./plugins/gamma", Loaded: true},
		{Name: "remote", Description: "On GitHub", Marketplace: "team-tools", Source: "github:example/remote-plugin", Fetch: "claude plugin install remote@team-tools", Enabled: true},
		{Name: "delta", Marketplace: "codex-team", Dir: filepath.Join(codex, "plugins", "delta"), Source: "./plugins/delta", Enabled: true, Loaded: true},
		{Name: "epsilon", Marketplace: "codex-team", Source: "https://example.com/epsilon.git", Fetch: "git clone https://example.com/epsilon.git", Enabled: true},
	}
	got := slices.Clone(c.Entries)
	for i := range got {
		got[i].File = ""
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("entries (-want +got):\n%s", d)
	}
	for _, f := range []string{
		claude, filepath.Join(claude, ".claude-plugin", "marketplace.json"),
		filepath.Join(codex, ".agents", "plugins", "marketplace.json"),
		filepath.Join(claude, "plugins", "alpha", ".claude-plugin", "plugin.json"),
		filepath.Join(claude, "plugins", "gamma"),
		filepath.Join(abs(t, "claude/demo"), ".mcp.json"),
	} {
		if !slices.Contains(c.Files, f) {
			t.Errorf("Files lacks %s: %q", f, c.Files)
		}
	}
}

// Two plugins of one name: the first wins, the second is a diagnostic naming both.
func TestLoadDuplicateName(t *testing.T) {
	a := writeTree(t, map[string]string{"one/.claude-plugin/plugin.json": `{"name": "same"}`, "two/.codex-plugin/plugin.json": `{"name": "same"}`})
	c := Load(Config{Dirs: []string{filepath.Join(a, "one"), filepath.Join(a, "two")}}, Options{})
	if d := cmp.Diff([]string{"same"}, names(c.Plugins)); d != "" {
		t.Fatalf("plugins: %s", d)
	}
	if len(c.Diagnostics) != 1 || !strings.Contains(c.Diagnostics[0].Message, filepath.Join(a, "one")) ||
		c.Diagnostics[0].File != filepath.Join(a, "two", ".codex-plugin", "plugin.json") {
		t.Errorf("diagnostics %q", diagStrings(c.Diagnostics))
	}
}

// Bad marketplaces and entries: each a diagnostic naming the marketplace file (and the
// entry's line), the other entries kept.
func TestBadMarketplaceEntries(t *testing.T) {
	outside := t.TempDir()
	root := writeTree(t, map[string]string{
		"plugins/good/.claude-plugin/plugin.json": `{"name": "good"}`,
		".claude-plugin/marketplace.json": `{
  "name": "m",
  "plugins": [
    {"name": "good", "source": "./plugins/good"},
    {"name": "etc", "source": "../../etc"},
    {"name": "abs", "source": "/etc"},
    {"name": "link", "source": "./out"},
    {"name": "Bad.Name", "source": "./plugins/good"},
    {"name": "nosrc", "source": 3},
    {"name": "kind", "source": {"source": "ftp"}},
    {"name": "missing", "source": "./plugins/missing"},
    "just a string",
    {"name": "good", "source": "./plugins/good"},
    {"name": "loop", "source": "./loop"}
  ]
}`,
	})
	os.Symlink(outside, filepath.Join(root, "out"))
	os.Symlink(filepath.Join(root, "loop"), filepath.Join(root, "loop"))
	c := Load(Config{Marketplaces: []MarketplaceConfig{{Path: root, Enable: []string{"*"}}}}, Options{})
	file := filepath.Join(root, ".claude-plugin", "marketplace.json")
	want := []string{
		file + `:5: plugins[1]: source: "../../etc" leaves the marketplace folder`,
		file + `:6: plugins[2]: source: "/etc": an absolute path`,
		file + `:7: plugins[3]: source: "./out" leaves the marketplace folder ` + root + ` through a symlink`,
		file + `:8: plugins[4]: name: name "Bad.Name" is not kebab-case`,
		file + `:9: plugins[5]: source: want a path or an object {source: …}, got a number`,
		file + `:10: plugins[6]: source: unknown source kind "ftp"`,
		file + `:11: plugins[7]: source: "./plugins/missing": no such folder`,
		file + `:12: plugins[8]: want an object {name, source, …}, got a string`,
		file + `:13: plugins[9]: "good" is listed already, by plugins[0]: not used`,
		file + `:14: plugins[10]: source: "./loop": a symlink loop`,
	}
	got := diagStrings(c.Diagnostics)
	if len(got) != len(want) {
		t.Errorf("%d diagnostics, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range min(len(got), len(want)) {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("diagnostic %d:\n%s\nwant it to start\n%s", i, got[i], want[i])
		}
	}
	if d := cmp.Diff([]string{"good"}, names(c.Plugins)); d != "" {
		t.Errorf("plugins: %s", d)
	}
	// Entries with a bad source are still listed, with no folder.
	var listed []string
	for _, e := range c.Entries {
		listed = append(listed, e.Name)
	}
	if d := cmp.Diff([]string{"good", "etc", "abs", "link", "nosrc", "kind", "missing", "loop"}, listed); d != "" {
		t.Errorf("entries: %s", d)
	}
}

func TestBadMarketplaceFiles(t *testing.T) {
	tests := map[string]string{
		"not json":       `{"name": `,
		"plugins object": `{"name": "m", "plugins": {}}`,
		"a list":         `[]`,
		"name a number":  `{"name": 1, "plugins": []}`,
	}
	for name, content := range tests {
		t.Run(name, func(t *testing.T) {
			root := writeTree(t, map[string]string{".agents/plugins/marketplace.json": content})
			c := Load(Config{Marketplaces: []MarketplaceConfig{{Path: root}}}, Options{})
			file := filepath.Join(root, ".agents", "plugins", "marketplace.json")
			if len(c.Diagnostics) != 1 || c.Diagnostics[0].File != file {
				t.Errorf("diagnostics %q, want one naming %s", diagStrings(c.Diagnostics), file)
			}
		})
	}
	loop := filepath.Join(t.TempDir(), "loop")
	os.Symlink(loop, loop)
	good := writeTree(t, map[string]string{".claude-plugin/plugin.json": `{"name": "good"}`})
	c := Load(Config{Marketplaces: []MarketplaceConfig{{Path: t.TempDir()}}, Dirs: []string{filepath.Join(t.TempDir(), "gone"), loop, good}}, Options{})
	if len(c.Diagnostics) != 3 || c.Diagnostics[1].File != loop || !strings.Contains(c.Diagnostics[1].Message, "symlink loop") {
		t.Errorf("a missing dir, a symlink loop and an empty marketplace folder: %q", diagStrings(c.Diagnostics))
	}
	if d := cmp.Diff([]string{"good"}, names(c.Enabled())); d != "" {
		t.Errorf("nothing else lost: %s", d)
	}
}

// Import installed: Claude Code's index (both versions) and settings, Codex's cache and
// config.toml, under a temporary HOME.
func TestImportInstalled(t *testing.T) {
	home := t.TempDir()
	cache := filepath.Join(home, ".claude", "plugins", "cache")
	files := map[string]string{
		".claude/plugins/cache/mkt/cc-on/1.0.0/.claude-plugin/plugin.json": `{"name": "cc-on"}`,
		".claude/plugins/cache/mkt/cc-off/1.0.0/commands/x.md":             "x",
		".claude/plugins/cache/mkt/odd/1/commands/x.md":                    "x",
		".claude/plugins/installed_plugins.json": `{"version": 2, "plugins": {
  "cc-on@mkt": [{"scope": "project", "installPath": "/nowhere", "version": "0.1"}, {"scope": "user", "installPath": "` + filepath.Join(cache, "mkt", "cc-on", "1.0.0") + `", "version": "1.0.0"}],
  "cc-off@mkt": [{"scope": "user", "installPath": "` + filepath.Join(cache, "mkt", "cc-off", "1.0.0") + `"}],
  "broken@mkt": [],
  "Odd.Name@mkt": [{"scope": "user", "installPath": "` + filepath.Join(cache, "mkt", "odd", "1") + `"}]
}}`,
		".claude/settings.json": `{"enabledPlugins": {"cc-on@mkt": true, "cc-off@mkt": false}}`,
		".codex/plugins/cache/openai/cx/0.9.0/.codex-plugin/plugin.json":  `{"name": "cx", "version": "0.9.0"}`,
		".codex/plugins/cache/openai/cx/0.10.0/.codex-plugin/plugin.json": `{"name": "cx", "version": "0.10.0"}`,
		".codex/plugins/cache/openai/cx-off/1/skills/s/SKILL.md":          "x",
		".codex/config.toml": `model = "gpt-5"
[plugins."cx@openai"]
enabled = true
[plugins."cx-off@openai"]
enabled = false
`,
	}
	writeInto(t, home, files)
	c := Load(Config{ImportInstalled: true}, Options{HomeDir: home})
	want := []string{home + "/.claude/plugins/installed_plugins.json:4: plugins.broken@mkt: no installPath"}
	// An installed plugin whose key is no valid name keeps its own (its folder's): "1".
	if d := cmp.Diff(want, diagStrings(c.Diagnostics)); d != "" {
		t.Errorf("diagnostics (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"1", "cc-off", "cc-on", "cx", "cx-off"}, names(c.Plugins)); d != "" {
		t.Errorf("plugins (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"cc-on", "cx"}, names(c.Enabled())); d != "" {
		t.Errorf("enabled (-want +got):\n%s", d)
	}
	if p := c.Plugin("cx"); p.Version != "0.10.0" || p.Source != "codex" {
		t.Errorf("cx = %+v: want the highest version, from codex", p)
	}
	if p := c.Plugin("cc-on"); p.Source != "claude-code" || p.Vars()["CLAUDE_PLUGIN_DATA"] != filepath.Join(home, ".claude", "plugins", "data", "cc-on-mkt") {
		t.Errorf("cc-on = %+v, vars %v", p, p.Vars())
	}
	// CODEX_HOME elsewhere; no import without the key or a home.
	if c := Load(Config{ImportInstalled: true}, Options{HomeDir: home, CodexHome: t.TempDir()}); slices.Contains(names(c.Plugins), "cx") {
		t.Error("CodexHome not used")
	}
	if c := Load(Config{}, Options{HomeDir: home}); len(c.Plugins) > 0 {
		t.Error("imported without import_installed")
	}
	// Version 1 of the index, and a corrupt config.toml.
	writeInto(t, home, map[string]string{
		".claude/plugins/installed_plugins.json": `{"version": 1, "plugins": {"cc-on@mkt": {"installPath": "` + filepath.Join(cache, "mkt", "cc-on", "1.0.0") + `"}}}`,
		".codex/config.toml":                     "[plugins\nx",
	})
	c = Load(Config{ImportInstalled: true}, Options{HomeDir: home})
	if !slices.Contains(names(c.Enabled()), "cc-on") {
		t.Errorf("version 1 index: enabled %v", names(c.Enabled()))
	}
	if len(c.Diagnostics) != 1 || c.Diagnostics[0].File != filepath.Join(home, ".codex", "config.toml") {
		t.Errorf("corrupt config.toml: %q", diagStrings(c.Diagnostics))
	}
}

func writeInto(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestInstalledRelativePath: Claude Code writes installPath absolute; a relative one would be
// read against whatever folder agentpool runs in, so it is a diagnostic naming the index, and
// not loaded.
func TestInstalledRelativePath(t *testing.T) {
	home := t.TempDir()
	cwd := t.TempDir()
	writeInto(t, cwd, map[string]string{"here/.claude-plugin/plugin.json": `{"name": "here"}`})
	writeInto(t, home, map[string]string{
		".claude/plugins/installed_plugins.json": `{"version": 2, "plugins": {"here@mkt": [{"scope": "user", "installPath": "here"}]}}`,
		".claude/settings.json":                  `{"enabledPlugins": {"here@mkt": true}}`,
	})
	t.Chdir(cwd)
	c := Load(Config{ImportInstalled: true}, Options{HomeDir: home})
	if len(c.Plugins) > 0 {
		t.Errorf("loaded %v from the working folder", names(c.Plugins))
	}
	index := filepath.Join(home, ".claude", "plugins", "installed_plugins.json")
	if len(c.Diagnostics) != 1 || c.Diagnostics[0].File != index || !strings.Contains(c.Diagnostics[0].Message, "not absolute") {
		t.Errorf("diagnostics %q", diagStrings(c.Diagnostics))
	}
}

// TestCodexConfigWrongTypes: a wrong kind of value in config.toml's plugins table is said in
// the file's own terms (the key, what was wanted), not Go's struct types, and costs only that
// plugin: the others' enabled flags still count.
func TestCodexConfigWrongTypes(t *testing.T) {
	home := t.TempDir()
	writeInto(t, home, map[string]string{
		".codex/plugins/cache/openai/good/1/skills/s/SKILL.md": "x",
		".codex/plugins/cache/openai/bad/1/skills/s/SKILL.md":  "x",
		".codex/config.toml": `[plugins."good@openai"]
enabled = true
[plugins."bad@openai"]
enabled = "yes"
`,
	})
	c := Load(Config{ImportInstalled: true}, Options{HomeDir: home})
	if d := cmp.Diff([]string{"good"}, names(c.Enabled())); d != "" {
		t.Errorf("enabled (-want +got):\n%s", d)
	}
	cfg := filepath.Join(home, ".codex", "config.toml")
	got := diagStrings(c.Diagnostics)
	if len(got) != 1 || c.Diagnostics[0].File != cfg || !strings.Contains(got[0], `plugins."bad@openai".enabled: want true or false, got a string`) || strings.Contains(got[0], "struct") {
		t.Errorf("diagnostics %q", got)
	}
	writeInto(t, home, map[string]string{".codex/config.toml": "plugins = 3\n"})
	c = Load(Config{ImportInstalled: true}, Options{HomeDir: home})
	if got := diagStrings(c.Diagnostics); len(got) != 1 || !strings.Contains(got[0], "plugins: want a table") || strings.Contains(got[0], "struct") {
		t.Errorf("diagnostics %q", got)
	}
}

// TestClaudeSettingsWrongTypes: a wrong kind of value in Claude Code's files is said in the
// files' own terms, not Go's types.
func TestClaudeSettingsWrongTypes(t *testing.T) {
	home := t.TempDir()
	writeInto(t, home, map[string]string{
		".claude/settings.json":                  `{"enabledPlugins": ["a@b"]}`,
		".claude/plugins/installed_plugins.json": `{"version": 2, "plugins": ["a@b"]}`,
	})
	c := Load(Config{ImportInstalled: true}, Options{HomeDir: home})
	got := diagStrings(c.Diagnostics)
	want := []string{
		filepath.Join(home, ".claude", "settings.json") + `: enabledPlugins: want an object of "name@marketplace": true or false, got a list: no Claude Code plugin is enabled`,
		filepath.Join(home, ".claude", "plugins", "installed_plugins.json") + `: plugins: want an object of "name@marketplace": [installs], got a list: no Claude Code plugin is read`,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("diagnostics (-want +got):\n%s", d)
	}
}

// Two marketplaces that list a plugin of one name: both are loaded, the later one under
// "<name>-<marketplace>", with a warning on it naming both; the same goes for plugins Claude
// Code and Codex installed from two marketplaces. A plugin of a taken name from the same
// marketplace (a second listing of one plugin) is still left out.
func TestLoadSameNameTwoMarketplaces(t *testing.T) {
	a, b := abs(t, "market-a"), abs(t, "market-b")
	c := Load(Config{Marketplaces: []MarketplaceConfig{{Path: a, Enable: []string{"*"}}, {Path: b, Enable: []string{"github"}}},
		Disable: []string{"linear"}}, Options{})
	if len(c.Diagnostics) > 0 {
		t.Errorf("diagnostics %q", diagStrings(c.Diagnostics))
	}
	if d := cmp.Diff([]string{"github", "linear", "github-market-b"}, names(c.Plugins)); d != "" {
		t.Fatalf("plugins (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"github", "github-market-b"}, names(c.Enabled())); d != "" {
		t.Errorf("enabled (-want +got):\n%s", d)
	}
	first, second := c.Plugin("github"), c.Plugin("github-market-b")
	if first.Dir != filepath.Join(a, "plugins", "github") || first.Marketplace != "market-a" ||
		second.Dir != filepath.Join(b, "plugins", "github") || second.Marketplace != "market-b" || second.Source != "marketplace:market-b" {
		t.Errorf("github = %+v\ngithub-market-b = %+v", first, second)
	}
	if len(second.Diagnostics) != 1 || second.Diagnostics[0].Severity != SeverityWarning ||
		!strings.Contains(second.Diagnostics[0].Message, `named "github-market-b"`) || !strings.Contains(second.Diagnostics[0].Message, first.Dir) {
		t.Errorf("github-market-b's diagnostics %q", diagStrings(second.Diagnostics))
	}
	// The state file and plugins.disable name it by its new name.
	c = Load(Config{Marketplaces: []MarketplaceConfig{{Path: a, Enable: []string{"*"}}, {Path: b, Enable: []string{"*"}}}},
		Options{State: State{Enabled: map[string]bool{"github-market-b": false}}})
	if d := cmp.Diff([]string{"github", "linear"}, names(c.Enabled())); d != "" {
		t.Errorf("enabled with github-market-b off (-want +got):\n%s", d)
	}
	// The same marketplace listed twice: its plugins are one plugin each.
	c = Load(Config{Marketplaces: []MarketplaceConfig{{Path: a}, {Path: filepath.Join(a, ".claude-plugin", "marketplace.json")}}}, Options{})
	if d := cmp.Diff([]string{"github", "linear"}, names(c.Plugins)); d != "" || len(c.Diagnostics) != 2 {
		t.Errorf("one marketplace twice: plugins (-want +got):\n%s\ndiagnostics %q", d, diagStrings(c.Diagnostics))
	}

	// Installed: Claude Code's github@official and Codex's github@openai-curated.
	home := t.TempDir()
	cc := filepath.Join(home, ".claude", "plugins", "cache", "official", "github", "1.0.0")
	writeInto(t, home, map[string]string{
		".claude/plugins/cache/official/github/1.0.0/.claude-plugin/plugin.json":     `{"name": "github"}`,
		".claude/plugins/installed_plugins.json":                                     `{"version": 2, "plugins": {"github@official": [{"scope": "user", "installPath": "` + cc + `"}]}}`,
		".claude/settings.json":                                                      `{"enabledPlugins": {"github@official": true}}`,
		".codex/plugins/cache/openai-curated/github/1.0.0/.codex-plugin/plugin.json": `{"name": "github"}`,
		".codex/config.toml":                                                         "[plugins.\"github@openai-curated\"]\nenabled = true\n",
	})
	c = Load(Config{ImportInstalled: true}, Options{HomeDir: home})
	if d := cmp.Diff([]string{"github", "github-openai-curated"}, names(c.Enabled())); d != "" {
		t.Errorf("installed: enabled (-want +got):\n%s\ndiagnostics %q", d, diagStrings(c.Diagnostics))
	}
}

// A name qualified by its marketplace is a valid name however long the two are.
func TestQualifiedNameValid(t *testing.T) {
	long := strings.Repeat("abcdefghij", 6) + "abcd"
	for _, c := range [][2]string{{"github", "market-b"}, {long, "market-b"}, {"github", long}, {long, long}, {"a", "b"}} {
		q := qualifiedName(c[0], c[1])
		if !ValidName(q) || q == c[0] {
			t.Errorf("qualifiedName(%q, %q) = %q: not a valid name, or the same", c[0], c[1], q)
		}
		if q2 := qualifiedName(c[0], c[1]+"x"); q2 == q {
			t.Errorf("qualifiedName(%q, %q) = qualifiedName(…, %q) = %q", c[0], c[1], c[1]+"x", q)
		}
	}
}

// A plugin of plugins.dirs keeps its name from a marketplace's plugin of the same name, which
// is left out as any later plugin of a taken name: only two marketplaces' plugins are both
// loaded.
func TestLoadDirsPluginAndMarketplacePluginOfOneName(t *testing.T) {
	a, b := abs(t, "market-a"), abs(t, "market-b")
	c := Load(Config{Dirs: []string{filepath.Join(a, "plugins", "github")}, Marketplaces: []MarketplaceConfig{{Path: b, Enable: []string{"*"}}}}, Options{})
	if d := cmp.Diff([]string{"github"}, names(c.Plugins)); d != "" {
		t.Errorf("plugins (-want +got):\n%s", d)
	}
	if len(c.Diagnostics) != 1 || !strings.Contains(c.Diagnostics[0].Message, "is not used: the name is taken") {
		t.Errorf("diagnostics %q", diagStrings(c.Diagnostics))
	}
}

package plugin

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// abs returns testdata's path rel, absolute with symlinks resolved (LoadPlugin's Dir).
func abs(t testing.TB, rel string) string {
	t.Helper()
	a, err := filepath.Abs(filepath.Join("testdata", filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	r, err := filepath.EvalSymlinks(a)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func errorsOf(p *Plugin) []string {
	var out []string
	for _, d := range p.Diagnostics {
		if d.Severity != SeverityDebug {
			out = append(out, d.String())
		}
	}
	return out
}

func TestLoadClaudePlugin(t *testing.T) {
	dir := abs(t, "claude/demo")
	p, err := LoadPlugin(filepath.Join("testdata", "claude", "demo"))
	if err != nil {
		t.Fatal(err)
	}
	if errs := errorsOf(p); len(errs) > 0 {
		t.Errorf("diagnostics: %q", errs)
	}
	want := &Plugin{
		Name: "demo", Version: "1.2.0", Description: "A Claude Code plugin for the tests",
		Author:   &Author{Name: "Ada", Email: "ada@example.com", URL: "https://example.com/ada"},
		Homepage: "https://example.com/demo", Repository: "https://github.com/example/demo", License: "MIT",
		Keywords: []string{"test", "demo"}, Format: FormatClaude, Dir: dir,
		Manifest:    filepath.Join(dir, ".claude-plugin", "plugin.json"),
		SkillDirs:   []string{filepath.Join(dir, "skills")},
		CommandDirs: []string{filepath.Join(dir, "commands")},
		Agents:      []string{filepath.Join(dir, "agents", "reviewer.md")},
		Hooks:       []string{filepath.Join(dir, "hooks", "hooks.json")},
		Unknown:     []string{"futureKey"},
	}
	want.Files = []string{dir, want.Manifest, filepath.Join(dir, ".mcp.json")}
	got := *p
	got.Diagnostics, got.MCP = nil, nil
	if d := cmp.Diff(want, &got); d != "" {
		t.Errorf("plugin (-want +got):\n%s", d)
	}
	if len(p.MCP) != 1 || p.MCP[0].File != filepath.Join(dir, ".mcp.json") || p.MCP[0].Inline || !strings.Contains(string(p.MCP[0].Data), "${CLAUDE_PLUGIN_ROOT}") {
		t.Errorf("MCP = %+v", p.MCP)
	}
	// The unknown key and the known-but-unused one are debug diagnostics naming the manifest
	// and the key's line.
	var debug []string
	for _, d := range p.Diagnostics {
		if d.Severity == SeverityDebug {
			debug = append(debug, d.String())
		}
	}
	if !slices.Contains(debug, want.Manifest+":11: futureKey: unknown key, ignored") ||
		!slices.ContainsFunc(debug, func(s string) bool { return strings.HasPrefix(s, want.Manifest+":10: userConfig: not loaded") }) {
		t.Errorf("debug diagnostics %q", debug)
	}
	if v := p.Vars(); v["CLAUDE_PLUGIN_ROOT"] != dir || v["PLUGIN_ROOT"] != dir {
		t.Errorf("Vars = %v", v)
	}
}

func TestLoadCodexPlugin(t *testing.T) {
	dir := abs(t, "codex/codex-demo")
	p, err := LoadPlugin(dir)
	if err != nil {
		t.Fatal(err)
	}
	if errs := errorsOf(p); len(errs) > 0 {
		t.Errorf("diagnostics: %q", errs)
	}
	if p.Name != "codex-demo" || p.Format != FormatCodex || p.Version != "0.3.1" || p.Author.Name != "Grace" {
		t.Errorf("plugin %+v", p)
	}
	wantIcons := []Icon{{Src: "./assets/icon.png"}, {Src: "./assets/logo.png"}}
	if d := cmp.Diff(wantIcons, p.Icons); d != "" {
		t.Errorf("icons (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{filepath.Join(dir, "skills")}, p.SkillDirs); d != "" {
		t.Errorf("skills (-want +got):\n%s", d)
	}
	if len(p.MCP) != 1 || p.MCP[0].File != filepath.Join(dir, ".mcp.json") {
		t.Errorf("MCP = %+v (the default and the manifest's path are one file)", p.MCP)
	}
	if len(p.Unknown) > 0 {
		t.Errorf("unknown %v", p.Unknown)
	}
}

func TestLoadNoManifest(t *testing.T) {
	dir := abs(t, "claude-market/plugins/gamma")
	p, err := LoadPlugin(dir)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "gamma" || p.Format != FormatNone || p.Manifest != "" || len(p.Diagnostics) > 0 {
		t.Errorf("plugin %+v", p)
	}
	if d := cmp.Diff([]string{filepath.Join(dir, "commands")}, p.CommandDirs); d != "" {
		t.Errorf("commands (-want +got):\n%s", d)
	}
}

// writeTree writes files (path → content) under a new temporary folder and returns it.
func writeTree(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// Bad manifests: each a diagnostic naming the manifest, the rest still loaded, a valid name.
func TestBadManifests(t *testing.T) {
	const m = ".claude-plugin/plugin.json"
	tests := []struct {
		name     string
		manifest string
		want     string // a part of one error or warning diagnostic: "<line>: message"
		wantName string
	}{
		{"not json", `{"name": "x",`, `:1: not JSON`, "my-plugin"},
		{"not an object", `["x"]`, `: want a JSON object, got a list`, "my-plugin"},
		{"name a number", "{\n\"name\": 42}", `:2: name: want a string, got a number`, "my-plugin"},
		{"name with a colon", `{"name": "a:b"}`, `:1: name: name "a:b" is not kebab-case`, "my-plugin"},
		{"name with a dot", `{"name": "a.b"}`, `name "a.b" is not kebab-case`, "my-plugin"},
		{"no name", `{"version": "1"}`, `no name`, "my-plugin"},
		{"skills an object", "{\"name\": \"p\",\n \"skills\": {\"a\": 1}}", `:2: skills: want a path or a list of paths, got an object`, "p"},
		{"author a number", `{"name": "p", "author": 7}`, `author: want an object {name, email, url} or a string, got a number`, "p"},
		{"keywords a string", `{"name": "p", "keywords": "x"}`, `keywords: want a list of strings, got a string`, "p"},
		{"version a list", `{"name": "p", "version": [1]}`, `version: want a string, got a list`, "p"},
		{"commands leave", `{"name": "p", "commands": "../../etc"}`, `commands: "../../etc" leaves the plugin folder`, "p"},
		{"agents absolute", `{"name": "p", "agents": ["/etc/passwd"]}`, `agents: "/etc/passwd": an absolute path`, "p"},
		{"missing path", `{"name": "p", "skills": ["./nope"]}`, `skills: "./nope" does not exist`, "p"},
		{"mcpServers a number", `{"name": "p", "mcpServers": 3}`, `mcpServers: want a path or a list of paths, got a number`, "p"},
		{"interface a string", `{"name": "p", "interface": "x"}`, `interface: want an object, got a string`, "p"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parent := writeTree(t, map[string]string{
				"my-plugin/" + m:                      tt.manifest,
				"my-plugin/skills/configure/SKILL.md": "---\nname: configure\ndescription: d\n---\n",
				"my-plugin/.mcp.json":                 `{"mcpServers": {}}`,
			})
			p, err := LoadPlugin(filepath.Join(parent, "my-plugin"))
			if err != nil {
				t.Fatal(err)
			}
			if p.Name != tt.wantName {
				t.Errorf("name %q, want %q", p.Name, tt.wantName)
			}
			manifest := filepath.Join(p.Dir, filepath.FromSlash(m))
			errs := errorsOf(p)
			if !slices.ContainsFunc(errs, func(s string) bool { return strings.HasPrefix(s, manifest) && strings.Contains(s, tt.want) }) {
				t.Errorf("diagnostics %q, want one naming %s with %q", errs, manifest, tt.want)
			}
			// Nothing else lost: the default skills folder and .mcp.json are still read.
			if len(p.SkillDirs) == 0 || len(p.MCP) == 0 {
				t.Errorf("skills %v, MCP %v: lost with the manifest's problem", p.SkillDirs, p.MCP)
			}
		})
	}
}

func TestInlineManifestParts(t *testing.T) {
	dir := writeTree(t, map[string]string{
		".claude-plugin/plugin.json": `{"name": "p", "author": "Bob", "repository": {"type": "git", "url": "https://g/x"},
			"mcpServers": {"s": {"command": "x"}}, "hooks": {"Stop": []}, "commands": ["./extra/one.md"],
			"icons": [{"src": "i.png", "mimeType": "image/png", "sizes": ["48x48"]}]}`,
		"extra/one.md": "hi",
	})
	p, err := LoadPlugin(dir)
	if err != nil {
		t.Fatal(err)
	}
	if errs := errorsOf(p); len(errs) > 0 {
		t.Errorf("diagnostics: %q", errs)
	}
	if p.Author == nil || p.Author.Name != "Bob" || p.Repository != "https://g/x" {
		t.Errorf("author %+v, repository %q", p.Author, p.Repository)
	}
	if len(p.MCP) != 1 || !p.MCP[0].Inline || p.MCP[0].File != p.Manifest || !strings.Contains(string(p.MCP[0].Data), `"mcpServers": {"s": {"command": "x"}}`) {
		t.Errorf("MCP %+v", p.MCP)
	}
	if d := cmp.Diff([]string{p.Manifest + "#hooks"}, p.Hooks); d != "" {
		t.Errorf("hooks: %s", d)
	}
	if d := cmp.Diff([]string{filepath.Join(p.Dir, "extra", "one.md")}, p.CommandDirs); d != "" {
		t.Errorf("commands: %s", d)
	}
	if d := cmp.Diff([]Icon{{Src: "i.png", MIMEType: "image/png", Sizes: []string{"48x48"}}}, p.Icons); d != "" {
		t.Errorf("icons: %s", d)
	}
}

func TestLoadPluginNotAFolder(t *testing.T) {
	dir := t.TempDir()
	loop := filepath.Join(dir, "loop")
	if err := os.Symlink(loop, loop); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	for _, path := range []string{loop, file, filepath.Join(dir, "missing")} {
		p, err := LoadPlugin(path)
		if !errors.Is(err, ErrNotFolder) || !strings.Contains(err.Error(), path) {
			t.Errorf("LoadPlugin(%s) = %v, %v; want ErrNotFolder naming it", path, p, err)
		}
	}
	if _, err := LoadPlugin(loop); !strings.Contains(err.Error(), "symlink loop") {
		t.Errorf("loop: %v", err)
	}
}

func TestSymlinkOutOfPlugin(t *testing.T) {
	outside := writeTree(t, map[string]string{"skills/x/SKILL.md": "x", "mcp.json": "{}"})
	dir := writeTree(t, map[string]string{".claude-plugin/plugin.json": `{"name": "p", "mcpServers": "./link.json"}`})
	os.Symlink(filepath.Join(outside, "skills"), filepath.Join(dir, "skills"))
	os.Symlink(filepath.Join(outside, "mcp.json"), filepath.Join(dir, "link.json"))
	p, err := LoadPlugin(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.SkillDirs) > 0 || len(p.MCP) > 0 {
		t.Errorf("read through symlinks leaving the folder: skills %v, MCP %v", p.SkillDirs, p.MCP)
	}
	errs := strings.Join(errorsOf(p), "\n")
	if !strings.Contains(errs, "leaves the plugin folder through a symlink") || strings.Count(errs, "through a symlink") != 2 {
		t.Errorf("diagnostics:\n%s", errs)
	}
}

func TestInvalidFolderName(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "My Plugin.v2")
	os.MkdirAll(dir, 0o755)
	p, err := LoadPlugin(dir)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "my-plugin-v2" || len(errorsOf(p)) != 1 {
		t.Errorf("name %q, diagnostics %q", p.Name, errorsOf(p))
	}
}

func TestTooLargeMCP(t *testing.T) {
	dir := writeTree(t, map[string]string{".mcp.json": strings.Repeat(" ", MaxFileSize+1)})
	p, err := LoadPlugin(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.MCP) != 0 || len(p.Diagnostics) != 1 || p.Diagnostics[0].File != filepath.Join(p.Dir, ".mcp.json") || !strings.Contains(p.Diagnostics[0].Message, "cap") {
		t.Errorf("MCP %v, diagnostics %v", p.MCP, p.Diagnostics)
	}
}

// TestManifestSymlinkOutOfPlugin: a manifest that is a symlink leaving the plugin folder (the
// file, or the .claude-plugin folder holding it) is not read, as a standard-layout folder or
// .mcp.json pointing out is not: an error diagnostic naming it, the folder's name used.
func TestManifestSymlinkOutOfPlugin(t *testing.T) {
	outside := writeTree(t, map[string]string{
		"plugin.json":                `{"name": "stolen", "mcpServers": {"s": {"command": "x"}}}`,
		".claude-plugin/plugin.json": `{"name": "stolen"}`,
	})
	for _, tc := range []struct{ name, link, target string }{
		{"file", ".claude-plugin/plugin.json", filepath.Join(outside, "plugin.json")},
		{"folder", ".claude-plugin", filepath.Join(outside, ".claude-plugin")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "mine")
			link := filepath.Join(dir, filepath.FromSlash(tc.link))
			if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(tc.target, link); err != nil {
				t.Fatal(err)
			}
			p, err := LoadPlugin(dir)
			if err != nil {
				t.Fatal(err)
			}
			if p.Name != "mine" || len(p.MCP) > 0 {
				t.Errorf("name %q, MCP %v: the manifest outside the folder was read", p.Name, p.MCP)
			}
			errs := strings.Join(errorsOf(p), "\n")
			if !strings.Contains(errs, "plugin.json") || !strings.Contains(errs, "leaves the plugin folder through a symlink") {
				t.Errorf("diagnostics:\n%s", errs)
			}
		})
	}
}

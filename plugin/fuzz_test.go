package plugin

import (
	"os"
	"path/filepath"
	"testing"
)

// addSeeds adds every fixture file matching pattern (under testdata) to f's corpus.
func addSeeds(f *testing.F, patterns ...string) {
	for _, pattern := range patterns {
		files, _ := filepath.Glob(filepath.Join("testdata", pattern))
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data, false)
			f.Add(data, true)
		}
	}
}

// FuzzLoadManifest: whatever the manifest holds, LoadPlugin does not panic or fail, and the
// plugin has a valid name and only paths inside its folder.
func FuzzLoadManifest(f *testing.F) {
	addSeeds(f, "*/*/.claude-plugin/plugin.json", "*/*/.codex-plugin/plugin.json", "*/plugins/*/.claude-plugin/plugin.json", "*/plugins/*/.codex-plugin/plugin.json")
	f.Add([]byte(`{"name": 1, "skills": {}, "author": 2, "mcpServers": [1, "../x"], "hooks": "/etc"}`), false)
	f.Add([]byte(`{"name": "a", "interface": {"logo": 3}, "icons": [{"src": 1}]}`), true)
	root := f.TempDir()
	f.Fuzz(func(t *testing.T, manifest []byte, codex bool) {
		dir, err := os.MkdirTemp(root, "p")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		rel := ClaudeManifest
		if codex {
			rel = CodexManifest
		}
		path := filepath.Join(dir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.MkdirAll(filepath.Join(dir, "skills"), 0o755)
		if err := os.WriteFile(path, manifest, 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := LoadPlugin(dir)
		if err != nil {
			t.Fatalf("LoadPlugin: %v", err)
		}
		if !ValidName(p.Name) {
			t.Errorf("name %q is not valid", p.Name)
		}
		for _, list := range [][]string{p.SkillDirs, p.CommandDirs, p.Agents} {
			for _, s := range list {
				if !within(p.Dir, s) {
					t.Errorf("%s is outside %s", s, p.Dir)
				}
			}
		}
		for _, d := range p.Diagnostics {
			if d.File == "" || d.Message == "" {
				t.Errorf("diagnostic without a file or message: %+v", d)
			}
		}
	})
}

// FuzzMarketplace: whatever the marketplace file holds, ReadMarketplace does not panic, and
// every entry has a valid name and a folder, if any, inside the marketplace.
func FuzzMarketplace(f *testing.F) {
	addSeeds(f, "*/.claude-plugin/marketplace.json", "*/.agents/plugins/marketplace.json")
	f.Add([]byte(`{"name": "m", "plugins": [{"name": "x", "source": "../../etc"}, {"name": "y", "source": {"source": "local", "path": "/"}}]}`), false)
	f.Add([]byte(`{"name": "m", "metadata": {"pluginRoot": "../.."}, "plugins": [{"name": "x", "source": "x"}]}`), true)
	root := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, codex bool) {
		dir, err := os.MkdirTemp(root, "m")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		rel := ClaudeMarketplace
		if codex {
			rel = CodexMarketplace
		}
		path := filepath.Join(dir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Join(dir, "plugins", "x"), 0o755)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		m := ReadMarketplace(path)
		if !ValidName(m.Name) {
			t.Errorf("marketplace name %q is not valid", m.Name)
		}
		for _, e := range m.Entries {
			if !ValidName(e.Name) {
				t.Errorf("entry name %q is not valid", e.Name)
			}
			if e.Dir != "" && !within(m.Root, e.Dir) {
				t.Errorf("entry %s: %s is outside %s", e.Name, e.Dir, m.Root)
			}
		}
	})
}

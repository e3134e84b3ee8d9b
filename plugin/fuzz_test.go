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

// rewrite makes the file at path hold data, written in place: truncating a file to nothing
// and writing it again makes ext4 flush it on close (its replace-by-truncate heuristic),
// which cost twenty times what the fuzz function does.
func rewrite(t testing.TB, path string, data []byte) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(data, 0); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(int64(len(data))); err != nil {
		t.Fatal(err)
	}
}

// FuzzLoadManifest: whatever the manifest holds, LoadPlugin does not panic or fail, and the
// plugin has a valid name and only paths inside its folder.
func FuzzLoadManifest(f *testing.F) {
	addSeeds(f, "*/*/.claude-plugin/plugin.json", "*/*/.codex-plugin/plugin.json", "*/plugins/*/.claude-plugin/plugin.json", "*/plugins/*/.codex-plugin/plugin.json")
	f.Add([]byte(`{"name": 1, "skills": {}, "author": 2, "mcpServers": [1, "../x"], "hooks": "/etc"}`), false)
	f.Add([]byte(`{"name": "a", "interface": {"logo": 3}, "icons": [{"src": 1}]}`), true)
	// One plugin folder a format, made once: an input only rewrites its manifest, since a
	// folder made and removed for each one cost more than LoadPlugin, and made the fuzzing
	// stall for minutes (the calls of one worker process run one at a time).
	root := f.TempDir()
	folder := func(rel string) (dir, path string) {
		dir = filepath.Join(root, filepath.Base(filepath.Dir(rel)), "p")
		path = filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			f.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, "skills"), 0o755); err != nil {
			f.Fatal(err)
		}
		return dir, path
	}
	claudeDir, claudePath := folder(ClaudeManifest)
	codexDir, codexPath := folder(CodexManifest)
	f.Fuzz(func(t *testing.T, manifest []byte, codex bool) {
		dir, path := claudeDir, claudePath
		if codex {
			dir, path = codexDir, codexPath
		}
		rewrite(t, path, manifest)
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
	// One marketplace folder a format, made once (as in FuzzLoadManifest).
	root := f.TempDir()
	folder := func(name, rel string) string {
		dir := filepath.Join(root, name)
		path := filepath.Join(dir, filepath.FromSlash(rel))
		for _, d := range []string{filepath.Join(dir, "plugins", "x"), filepath.Dir(path)} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				f.Fatal(err)
			}
		}
		return path
	}
	claudePath, codexPath := folder("claude", ClaudeMarketplace), folder("codex", CodexMarketplace)
	f.Fuzz(func(t *testing.T, data []byte, codex bool) {
		path := claudePath
		if codex {
			path = codexPath
		}
		rewrite(t, path, data)
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

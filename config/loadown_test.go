package config

import (
	"path/filepath"
	"slices"
	"testing"
)

// LoadOwn reads the file's own servers and lists its imports, resolved, without reading them:
// an import that is not JSON, or does not exist, is no error. Load reads them.
func TestLoadOwnReadsNoImport(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agentpool.yaml": "import: [good.json, broken.json, missing.json]\nmcp_servers:\n  own: {command: own}\n",
		"good.json":      `{"mcpServers": {"imported": {"command": "imp"}}}`,
		"broken.json":    "not JSON {",
	})
	path := filepath.Join(dir, "agentpool.yaml")
	cfg, err := LoadOwn(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "good.json"), filepath.Join(dir, "broken.json"), filepath.Join(dir, "missing.json")}
	if !cfg.ImportsUnread || !slices.Equal(cfg.Import, want) || !slices.Equal(cfg.MCPServers.Names(), []string{"own"}) {
		t.Errorf("LoadOwn: unread %v, import %q, servers %v", cfg.ImportsUnread, cfg.Import, cfg.MCPServers.Names())
	}
	if d := cfg.Declared(); !slices.Equal(d.Names(), []string{"own"}) {
		t.Errorf("LoadOwn: declared %v", d.Names())
	}
	if _, err := Load(path); err == nil {
		t.Error("Load accepts a broken import: it was not read")
	}
	writeFiles(t, dir, map[string]string{"agentpool.yaml": "mcp_servers:\n  own: {command: own}\n"})
	if cfg, err := LoadOwn(path); err != nil || cfg.ImportsUnread {
		t.Errorf("LoadOwn of a config without imports: unread %v, %v", cfg != nil && cfg.ImportsUnread, err)
	}
}

package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/plugin"
	"github.com/google/go-cmp/cmp"
)

// The plugins section is decoded as the others: ${VAR} expanded and paths resolved against
// the config's folder, in dirs and in each marketplace's path.
func TestParsePlugins(t *testing.T) {
	t.Setenv("AP_MARKETS", "/srv/markets")
	dir := t.TempDir()
	path := filepath.Join(dir, "agentpool.yaml")
	data := `
plugins:
  dirs: [./my-plugin, "${AP_MARKETS}/solo"]
  marketplaces:
    - path: markets/team
      enable: [alpha, beta]
    - path: ${AP_MARKETS}/codex
      enable: ["*"]
  disable: [gamma]
  import_installed: true
`
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	want := plugin.Config{
		Dirs: []string{filepath.Join(dir, "my-plugin"), "/srv/markets/solo"},
		Marketplaces: []plugin.MarketplaceConfig{
			{Path: filepath.Join(dir, "markets", "team"), Enable: []string{"alpha", "beta"}},
			{Path: "/srv/markets/codex", Enable: []string{"*"}},
		},
		Disable:         []string{"gamma"},
		ImportInstalled: true,
	}
	if d := cmp.Diff(want, cfg.Plugins); d != "" {
		t.Errorf("plugins (-want +got):\n%s", d)
	}
}

func TestSchemaHasPlugins(t *testing.T) {
	data, err := SchemaJSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"plugin.Config"`, `"import_installed"`, `"plugin.MarketplaceConfig"`} {
		if !strings.Contains(string(data), s) {
			t.Errorf("schema lacks %s", s)
		}
	}
}

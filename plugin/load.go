package plugin

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Options are what Load needs beyond the config.
type Options struct {
	// State is the user's enable/disable choices; it overrides the config.
	State State
	// HomeDir is the user's home, for ~/.claude and ~/.codex (import_installed); "" skips
	// the import.
	HomeDir string
	// CodexHome is $CODEX_HOME; "" means <HomeDir>/.codex.
	CodexHome string
}

// Catalog is everything Load found.
type Catalog struct {
	// Plugins are every plugin read from disk, enabled or not, in precedence order: dirs,
	// marketplaces in order, installed (Claude Code, then Codex). A name is one plugin: a
	// second plugin of a name already used is not here, it is a diagnostic naming both.
	Plugins []*Plugin
	// Entries are every marketplace entry, including the ones not on disk.
	Entries []Entry
	// Diagnostics are the problems not of one plugin (a marketplace file, a folder that is
	// not one, a name used twice, the other tools' files); a plugin's own are in its
	// Diagnostics.
	Diagnostics []Diagnostic
	// Files are every file or folder whose change should make a running host load plugins
	// again: marketplace files, manifests, .mcp.json files, plugin folders (so one appearing
	// is seen), the configured paths, the other tools' state files.
	Files []string
}

// Enabled returns the enabled plugins, in precedence order.
func (c *Catalog) Enabled() []*Plugin {
	var out []*Plugin
	for _, p := range c.Plugins {
		if p.Enabled {
			out = append(out, p)
		}
	}
	return out
}

// Plugin returns the plugin named name, nil when none.
func (c *Catalog) Plugin(name string) *Plugin {
	for _, p := range c.Plugins {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// Load reads every plugin cfg and opts name. It never fails as a whole: every problem is a
// diagnostic, and nothing else is lost.
//
// Enabling: a plugin of cfg.Dirs is enabled; a marketplace's plugin when its name is in that
// marketplace's Enable (or Enable holds "*"); an installed plugin when Claude Code or Codex
// has it enabled. Then cfg.Disable turns off, then opts.State.Enabled[name] (true or false)
// overrides everything.
func Load(cfg Config, opts Options) *Catalog {
	l := &loader{c: &Catalog{}, byName: map[string]*Plugin{}, cfg: cfg, opts: opts}
	for _, d := range cfg.Dirs {
		l.file(d)
		l.add(d, "config", true, nil)
	}
	for _, mc := range cfg.Marketplaces {
		l.marketplace(mc)
	}
	if cfg.ImportInstalled && opts.HomeDir != "" {
		l.claudeInstalled()
		l.codexInstalled()
	}
	for _, p := range l.c.Plugins {
		for _, f := range p.Files {
			l.file(f)
		}
	}
	return l.c
}

type loader struct {
	c      *Catalog
	byName map[string]*Plugin
	seen   map[string]bool // Files already listed
	cfg    Config
	opts   Options
}

// file adds path to Catalog.Files once.
func (l *loader) file(path string) {
	if l.seen == nil {
		l.seen = map[string]bool{}
	}
	if path != "" && !l.seen[path] {
		l.seen[path] = true
		l.c.Files = append(l.c.Files, path)
	}
}

func (l *loader) diag(file string, format string, a ...any) {
	l.c.Diagnostics = append(l.c.Diagnostics, Diagnostic{File: file, Severity: SeverityError, Message: fmt.Sprintf(format, a...)})
}

// add reads the plugin folder dir found at source, enabled as that source says; entry, when
// not nil, is what the source says of it (a marketplace entry: its name is the plugin's). It
// returns the plugin when it is in the catalog.
func (l *loader) add(dir, source string, enabled bool, entry *Entry) *Plugin {
	p, err := LoadPlugin(dir)
	if err != nil {
		l.diag(dir, "%v", err)
		return nil
	}
	p.Source = source
	if entry != nil && ValidName(entry.Name) { // another tool's file may name it otherwise
		if p.Name != entry.Name {
			if p.Manifest != "" {
				p.Diagnostics = append(p.Diagnostics, Diagnostic{File: p.Manifest, Severity: SeverityWarning,
					Message: fmt.Sprintf("name %q differs from %s's entry %q: the entry's name is used", p.Name, entry.File, entry.Name)})
			}
			p.Name = entry.Name
		}
		if p.Description == "" {
			p.Description = entry.Description
		}
		if p.Version == "" {
			p.Version = entry.Version
		}
	}
	if entry != nil {
		p.Marketplace = entry.Marketplace
	}
	if first, ok := l.byName[p.Name]; ok && p.Marketplace != "" && first.Marketplace != "" && first.Marketplace != p.Marketplace {
		// Two marketplaces' plugins of one name (github in both official ones) are two
		// plugins: the later is told apart by its marketplace.
		if q := qualifiedName(p.Name, p.Marketplace); l.byName[q] == nil {
			p.Diagnostics = append(p.Diagnostics, Diagnostic{File: p.Dir, Severity: SeverityWarning, Message: fmt.Sprintf(
				"plugin %q of marketplace %s is named %q: %q is taken by %s (%s), which comes first", p.Name, p.Marketplace, q, p.Name, first.Dir, first.Source)})
			p.Name = q
		}
	}
	if first, ok := l.byName[p.Name]; ok {
		where := p.Dir
		if p.Manifest != "" {
			where = p.Manifest
		}
		l.c.Diagnostics = append(l.c.Diagnostics, Diagnostic{File: where, Severity: SeverityError, Message: fmt.Sprintf(
			"plugin %q (%s, %s) is not used: the name is taken by %s (%s), which comes first", p.Name, source, p.Dir, first.Dir, first.Source)})
		return nil
	}
	p.Enabled = l.enabled(p.Name, enabled)
	l.byName[p.Name] = p
	l.c.Plugins = append(l.c.Plugins, p)
	return p
}

// qualifiedName is the name of plugin name of marketplace market when a plugin of another
// marketplace has name: "<name>-<market>", a valid name (ValidName), shortened with a hash of
// both when longer than MaxNameLength, so that two marketplaces always give two names.
func qualifiedName(name, market string) string {
	q := name + "-" + kebab(market)
	if len(q) <= MaxNameLength {
		return q
	}
	sum := sha256.Sum256([]byte(name + "@" + market))
	tag := hex.EncodeToString(sum[:4])
	return strings.TrimRight(q[:MaxNameLength-len(tag)-1], "-") + "-" + tag
}

// marketplace reads one configured marketplace: its files, their entries, and the plugins of
// the entries on disk.
func (l *loader) marketplace(mc MarketplaceConfig) {
	l.file(mc.Path)
	files, err := MarketplaceFiles(mc.Path)
	if err != nil {
		l.diag(mc.Path, "%v", err)
		return
	}
	listed := map[string]bool{}
	for _, f := range files {
		m := ReadMarketplace(f)
		l.file(m.File)
		l.c.Diagnostics = append(l.c.Diagnostics, m.Diagnostics...)
		for _, e := range m.Entries {
			listed[e.Name] = true
			on := slices.Contains(mc.Enable, "*") || slices.Contains(mc.Enable, e.Name)
			e.Enabled = l.enabled(e.Name, on) // as it would be: its folder may not be loaded
			if e.Dir != "" {
				if p := l.add(e.Dir, "marketplace:"+m.Name, on, &e); p != nil {
					e.Loaded, e.Enabled = true, p.Enabled
				}
			}
			l.c.Entries = append(l.c.Entries, e)
		}
	}
	for _, name := range mc.Enable {
		if name != "*" && !listed[name] {
			l.c.Diagnostics = append(l.c.Diagnostics, Diagnostic{File: files[0], Severity: SeverityWarning,
				Message: fmt.Sprintf("plugin %q is to be enabled (plugins.marketplaces) but the marketplace lists no such plugin", name)})
		}
	}
}

// enabled applies cfg.Disable, then the State, to what the source says of name.
func (l *loader) enabled(name string, on bool) bool {
	if slices.Contains(l.cfg.Disable, name) {
		on = false
	}
	if st, ok := l.opts.State.Enabled[name]; ok {
		on = st
	}
	return on
}

// codexHome is $CODEX_HOME or ~/.codex.
func (l *loader) codexHome() string {
	if l.opts.CodexHome != "" {
		return l.opts.CodexHome
	}
	return filepath.Join(l.opts.HomeDir, ".codex")
}

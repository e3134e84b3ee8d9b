package plugin

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agentpool/agentpool/internal/regfile"
	"github.com/pelletier/go-toml/v2"
)

// This file reads the plugins Claude Code and Codex have installed (plugins.import_installed),
// from those tools' own files; where each fact comes from is in the package doc.

// claudeInstall is one install record of installed_plugins.json.
type claudeInstall struct {
	Scope       string `json:"scope"`
	InstallPath string `json:"installPath"`
	Version     string `json:"version"`
}

// claudeInstalled reads ~/.claude/plugins/installed_plugins.json and the enabledPlugins of
// ~/.claude/settings.json.
func (l *loader) claudeInstalled() {
	base := filepath.Join(l.opts.HomeDir, ".claude")
	index := filepath.Join(base, "plugins", "installed_plugins.json")
	settings := filepath.Join(base, "settings.json")
	l.file(index)
	l.file(settings)
	enabled := map[string]bool{}
	if data, err := l.optional(settings); data != nil {
		var s map[string]json.RawMessage
		var plugins map[string]json.RawMessage
		if err := json.Unmarshal(data, &s); err != nil {
			l.c.Diagnostics = append(l.c.Diagnostics, jsonDiagnostic(settings, data, err, "no Claude Code plugin is enabled"))
		} else if raw, ok := s["enabledPlugins"]; ok && json.Unmarshal(raw, &plugins) != nil {
			l.diag(settings, "enabledPlugins: want an object of \"name@marketplace\": true or false, got %s: no Claude Code plugin is enabled", jsonKind(raw))
		}
		for k, v := range plugins {
			enabled[k] = string(v) == "true"
		}
	} else if err != nil {
		l.diag(settings, "%v", err)
	}
	data, err := l.optional(index)
	if data == nil {
		if err != nil {
			l.diag(index, "%v", err)
		}
		return
	}
	var doc struct {
		Plugins map[string]json.RawMessage
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		l.c.Diagnostics = append(l.c.Diagnostics, jsonDiagnostic(index, data, err, "no Claude Code plugin is read"))
		return
	}
	if raw, ok := top["plugins"]; ok && json.Unmarshal(raw, &doc.Plugins) != nil {
		l.diag(index, "plugins: want an object of \"name@marketplace\": [installs], got %s: no Claude Code plugin is read", jsonKind(raw))
		return
	}
	pos := newPositions(data)
	for _, key := range sortedKeys(doc.Plugins) {
		raw := doc.Plugins[key]
		var installs []claudeInstall
		if jsonKind(raw) == "an object" { // version 1: one record a plugin
			var one claudeInstall
			if json.Unmarshal(raw, &one) == nil {
				installs = []claudeInstall{one}
			}
		} else if json.Unmarshal(raw, &installs) != nil {
			installs = nil
		}
		// The user's install first: the others belong to a project.
		slices.SortStableFunc(installs, func(a, b claudeInstall) int {
			return boolOrder(a.Scope != "user", b.Scope != "user")
		})
		if len(installs) == 0 || installs[0].InstallPath == "" {
			l.c.Diagnostics = append(l.c.Diagnostics, Diagnostic{File: index, Line: pos.line("plugins." + key), Severity: SeverityError,
				Message: fmt.Sprintf("plugins.%s: no installPath", key)})
			continue
		}
		if !filepath.IsAbs(installs[0].InstallPath) {
			l.c.Diagnostics = append(l.c.Diagnostics, Diagnostic{File: index, Line: pos.line("plugins." + key), Severity: SeverityError,
				Message: fmt.Sprintf("plugins.%s: installPath %q is not absolute: not read (Claude Code writes it absolute; reinstall the plugin)", key, installs[0].InstallPath)})
			continue
		}
		name, market, _ := strings.Cut(key, "@")
		p := l.add(installs[0].InstallPath, "claude-code", enabled[key], &Entry{Name: name, Version: installs[0].Version, Marketplace: market, File: index})
		if p != nil {
			p.DataDir = filepath.Join(base, "plugins", "data", dataID(key))
		}
	}
}

// jsonDiagnostic says why data, another tool's JSON file at path, is no JSON object: not
// JSON (at the syntax error's line), or another kind of value; then what that costs (then).
func jsonDiagnostic(path string, data []byte, err error, then string) Diagnostic {
	d := Diagnostic{File: path, Severity: SeverityError}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		d.Line = lineAt(data, int(se.Offset))
		d.Message = fmt.Sprintf("not JSON: %v: %s", err, then)
	} else {
		d.Message = fmt.Sprintf("want a JSON object, got %s: %s", jsonKind(data), then)
	}
	return d
}

// dataID is Claude Code's folder name for a plugin's data: its identifier with every
// character but letters, digits, '_' and '-' replaced by '-'.
func dataID(key string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			return r
		}
		return '-'
	}, key)
}

func boolOrder(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// codexInstalled reads $CODEX_HOME/plugins/cache/<marketplace>/<plugin>/<version>/ and the
// [plugins."<plugin>@<marketplace>"] enabled flags of $CODEX_HOME/config.toml.
func (l *loader) codexInstalled() {
	home := l.codexHome()
	cfgPath := filepath.Join(home, "config.toml")
	cache := filepath.Join(home, "plugins", "cache")
	l.file(cfgPath)
	l.file(cache)
	enabled := map[string]bool{}
	if data, err := l.optional(cfgPath); data != nil {
		// Decoded as any and checked here: a decoding into Go types would say a wrong kind
		// of value in Go's words (struct fields) and drop the other plugins' flags with it.
		var cfg struct {
			Plugins any `toml:"plugins"`
		}
		bad := func(format string, a ...any) {
			l.diag(cfgPath, format, a...)
		}
		if err := toml.Unmarshal(data, &cfg); err != nil {
			line := 0
			var de *toml.DecodeError
			if errors.As(err, &de) {
				line, _ = de.Position()
			}
			l.c.Diagnostics = append(l.c.Diagnostics, Diagnostic{File: cfgPath, Line: line, Severity: SeverityError,
				Message: fmt.Sprintf("%v: no Codex plugin is enabled", err)})
		} else if table, ok := cfg.Plugins.(map[string]any); ok {
			for _, k := range sortedKeys(table) {
				at := fmt.Sprintf("plugins.%q", k)
				entry, ok := table[k].(map[string]any)
				if !ok {
					bad("%s: want a table (enabled = true or false), got %s: not enabled", at, tomlKind(table[k]))
					continue
				}
				if v, ok := entry["enabled"]; ok {
					on, ok := v.(bool)
					if !ok {
						bad("%s.enabled: want true or false, got %s: not enabled", at, tomlKind(v))
					}
					enabled[k] = on
				}
			}
		} else if cfg.Plugins != nil {
			bad("plugins: want a table of [plugins.\"name@marketplace\"] tables, got %s: no Codex plugin is enabled", tomlKind(cfg.Plugins))
		}
	} else if err != nil {
		l.diag(cfgPath, "%v", err)
	}
	markets, err := os.ReadDir(cache)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			l.diag(cache, "%v", err)
		}
		return
	}
	for _, m := range markets {
		if !m.IsDir() {
			continue
		}
		plugins, err := os.ReadDir(filepath.Join(cache, m.Name()))
		if err != nil {
			l.diag(filepath.Join(cache, m.Name()), "%v", err)
			continue
		}
		for _, pl := range plugins {
			dir := filepath.Join(cache, m.Name(), pl.Name())
			version := latestVersion(dir)
			if version == "" {
				continue
			}
			key := pl.Name() + "@" + m.Name()
			l.add(filepath.Join(dir, version), "codex", enabled[key], &Entry{Name: pl.Name(), Version: version, Marketplace: m.Name(), File: cfgPath})
		}
	}
}

// tomlKind names the kind of a decoded TOML value as its writer knows it.
func tomlKind(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case bool:
		return "true or false"
	case int64, float64:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	}
	return "a date or time"
}

// latestVersion is the name of the highest version folder of dir ("" when none): versions
// compared by their numeric parts, then as text.
func latestVersion(dir string) string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	var best string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && (best == "" || compareVersions(e.Name(), best) > 0) {
			best = e.Name()
		}
	}
	return best
}

// compareVersions compares dotted versions part by part, numerically where both parts are
// numbers.
func compareVersions(a, b string) int {
	pa, pb := strings.FieldsFunc(a, isVersionSep), strings.FieldsFunc(b, isVersionSep)
	for i := range min(len(pa), len(pb)) {
		na, ea := strconv.Atoi(pa[i])
		nb, eb := strconv.Atoi(pb[i])
		switch {
		case ea == nil && eb == nil && na != nb:
			return na - nb
		case (ea != nil || eb != nil) && pa[i] != pb[i]:
			return strings.Compare(pa[i], pb[i])
		}
	}
	return len(pa) - len(pb)
}

func isVersionSep(r rune) bool { return r == '.' || r == '-' || r == '+' }

// optional reads a file of another tool: nil, nil when it does not exist.
func (l *loader) optional(path string) ([]byte, error) {
	data, err := regfile.ReadFile(path, MaxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

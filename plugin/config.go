package plugin

import (
	"errors"
	"fmt"
	"regexp"
)

// Config is the plugins section of the config file: plugin folders, marketplaces and which of
// their plugins to use. Its YAML keys are its own; package config decodes it, expanding ${VAR}
// in the fields tagged config:"expand" and resolving those tagged config:"path" against the
// config file's folder, and calls Validate.
type Config struct {
	// Dirs are plugin folders: each is enabled unless Disable or the State says otherwise.
	Dirs []string `yaml:"dirs" config:"expand,path"`
	// Marketplaces are marketplace folders (or files) and the names of their plugins to use.
	Marketplaces []MarketplaceConfig `yaml:"marketplaces"`
	// Disable names plugins not used, wherever they are found.
	Disable []string `yaml:"disable"`
	// ImportInstalled reads the plugins Claude Code and Codex have installed, each enabled as
	// that tool has it.
	ImportInstalled bool `yaml:"import_installed"`
}

// MarketplaceConfig is one marketplace of the plugins section.
type MarketplaceConfig struct {
	// Path is a marketplace folder (holding .claude-plugin/marketplace.json or
	// .agents/plugins/marketplace.json) or the JSON file itself.
	Path string `yaml:"path" config:"expand,path"`
	// Enable names the plugins of this marketplace to enable; "*" enables them all.
	Enable []string `yaml:"enable"`
}

// namePattern is a plugin name: kebab-case. The name namespaces what the plugin brings
// ("name:skill", "/name:command"), so it never holds ':' or '.'.
var namePattern = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?$`)

// MaxNameLength bounds a plugin name, as the Agent Skills spec bounds a skill's.
const MaxNameLength = 64

// ValidName reports whether name may name a plugin: kebab-case (a-z, 0-9 and inner '-'), at
// most MaxNameLength bytes.
func ValidName(name string) bool {
	return len(name) <= MaxNameLength && namePattern.MatchString(name)
}

// nameProblem says why name is not a valid plugin name, "" when it is.
func nameProblem(name string) string {
	switch {
	case name == "":
		return "an empty name"
	case len(name) > MaxNameLength:
		return fmt.Sprintf("name %.20q… is longer than %d bytes", name, MaxNameLength)
	case !namePattern.MatchString(name):
		return fmt.Sprintf("name %q is not kebab-case (a-z, 0-9 and '-', not at either end; it prefixes skills as %q)", name, "name:skill")
	}
	return ""
}

// Validate returns every problem of c, joined (nil when none). Each problem's message starts
// with its key under key ("plugins" gives "plugins.marketplaces[1].path: …") and has a Key()
// string method returning it, so that package config can place it in the file.
func (c *Config) Validate(key string) error {
	var errs []error
	for i, d := range c.Dirs {
		if d == "" {
			errs = append(errs, keyErrorf(fmt.Sprintf("%s.dirs[%d]", key, i), "an empty path"))
		}
	}
	for i, m := range c.Marketplaces {
		at := fmt.Sprintf("%s.marketplaces[%d]", key, i)
		if m.Path == "" {
			errs = append(errs, keyErrorf(at+".path", "a marketplace needs a path (its folder or its marketplace.json)"))
		}
		for j, n := range m.Enable {
			if n == "*" {
				continue
			}
			if why := nameProblem(n); why != "" {
				errs = append(errs, keyErrorf(fmt.Sprintf("%s.enable[%d]", at, j), "%s; \"*\" enables every plugin", why))
			}
		}
	}
	for i, n := range c.Disable {
		if why := nameProblem(n); why != "" {
			errs = append(errs, keyErrorf(fmt.Sprintf("%s.disable[%d]", key, i), "%s", why))
		}
	}
	return errors.Join(errs...)
}

// keyError is one problem of a config key: "<key>: <what>". Key lets package config place it
// in the file without parsing the message.
type keyError struct{ key, msg string }

func keyErrorf(key, format string, a ...any) error {
	return &keyError{key: key, msg: fmt.Sprintf(format, a...)}
}

func (e *keyError) Error() string { return e.key + ": " + e.msg }

// Key returns the YAML key the problem concerns, as in "plugins.marketplaces[1].path".
func (e *keyError) Key() string { return e.key }

package skill

import (
	"errors"
	"fmt"
	"time"
)

// Config is the skills section of the config file: where local skills are found and how they
// are followed. Its YAML keys are its own; package config decodes it, expanding ${VAR} in the
// fields tagged config:"expand" and resolving those tagged config:"path" against the config
// file's folder, and calls Validate.
type Config struct {
	// Dirs are skill roots, after those named on the command line and before DefaultRoots.
	Dirs []string `yaml:"dirs" config:"expand,path"`
	// Watch turns hot reload off when false; nil leaves it to the caller (on by default).
	Watch *bool `yaml:"watch"`
	// Debounce is the quiet time after the last file event before a rescan; zero means
	// DefaultDebounce.
	Debounce time.Duration `yaml:"debounce"`
	// MaxFolders bounds the folders read per root (Options.MaxFolders); zero means
	// DefaultMaxFolders.
	MaxFolders int `yaml:"max_folders"`
	// CatalogueBudget bounds the skill catalogue of the system prompt, in characters
	// (Options.CatalogueBudget); nil means DefaultCatalogueBudget, 0 no limit.
	CatalogueBudget *int `yaml:"catalogue_budget"`
}

// Budget returns the catalogue budget: CatalogueBudget, or DefaultCatalogueBudget when unset.
func (c Config) Budget() int {
	if c.CatalogueBudget == nil {
		return DefaultCatalogueBudget
	}
	return *c.CatalogueBudget
}

// Watching reports whether to watch the files when the caller asks for it (want): the config
// can turn watching off, never on.
func (c Config) Watching(want bool) bool { return want && (c.Watch == nil || *c.Watch) }

// Validate returns every problem of c, joined (nil when none). Each problem's message starts
// with its key under key ("skills" gives "skills.debounce: …") and has a Key() string method
// returning it, so that package config can place it in the file.
func (c *Config) Validate(key string) error {
	var errs []error
	if c.Debounce < 0 {
		errs = append(errs, keyErrorf(key+".debounce", "must not be negative, got %s", c.Debounce))
	}
	if c.MaxFolders < 0 {
		errs = append(errs, keyErrorf(key+".max_folders", "must not be negative, got %d", c.MaxFolders))
	}
	if c.CatalogueBudget != nil && *c.CatalogueBudget < 0 {
		errs = append(errs, keyErrorf(key+".catalogue_budget", "must not be negative (0 is no limit), got %d", *c.CatalogueBudget))
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

// Key returns the YAML key the problem concerns, as in "skills.debounce".
func (e *keyError) Key() string { return e.key }

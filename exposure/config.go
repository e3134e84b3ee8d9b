package exposure

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/agentpool/agentpool/view"
)

// Mode is how a session's tools/list shows the tools of its view.
type Mode string

const (
	// ModeAll lists every tool of the view (the default).
	ModeAll Mode = "all"
	// ModeSearch lists the always-on tools, the tools the session activated, and the search
	// and call tools.
	ModeSearch Mode = "search"
	// ModeAuto is ModeSearch while the view's tools exceed AutoTools or AutoBytes, ModeAll
	// otherwise.
	ModeAuto Mode = "auto"
)

// Defaults of Config's zero fields.
const (
	// DefaultMaxActive is how many tools a session keeps activated at once.
	DefaultMaxActive = 32
	// DefaultAutoTools is the tool count past which auto searches: Cursor has capped the
	// tools it takes across servers near 40 and VS Code caps a request's tools at 128, and
	// tool-selection accuracy falls well before either; 30 keeps every client under its cap.
	DefaultAutoTools = 30
	// DefaultAutoBytes is the listing size (the JSON of every tool's name, title,
	// description and schemas) past which auto searches: about 20,000 tokens, 10 % of a
	// 200,000-token context window.
	DefaultAutoBytes = 80_000
)

// DefaultAlwaysOn is the tools listed in every mode when AlwaysOn is nil: agentpool's own
// skill tool, which the skill catalogue in the instructions points to.
var DefaultAlwaysOn = []string{"load_skill"}

// Config is the tool exposure of one path: server.tools for the pool's, agents.<name>.tools
// for an agent's. The zero Config is ModeAll with the defaults.
type Config struct {
	// Mode is all, search or auto; "" means the enclosing config's (an agent's inherits
	// server.tools), and all at the top.
	Mode Mode `yaml:"mode" json:"mode"`
	// AlwaysOn lists path.Match patterns over served tool names ("load_skill",
	// "github__search_*") whose tools are listed in search mode too. Nil means
	// DefaultAlwaysOn; an empty list means none.
	AlwaysOn []string `yaml:"always_on" json:"always_on"`
	// AlwaysOnServers lists servers (capability names) all of whose tools are always on.
	AlwaysOnServers []string `yaml:"always_on_servers" json:"always_on_servers,omitempty"`
	// MaxActive caps the tools a session has activated by searching: past it, the least
	// recently used is deactivated. Zero means DefaultMaxActive.
	MaxActive int `yaml:"max_active" json:"max_active"`
	// AutoTools and AutoBytes are auto's threshold: search once the view has more tools, or
	// its listing more bytes. Zero means DefaultAutoTools, DefaultAutoBytes.
	AutoTools int `yaml:"auto_tools" json:"auto_tools"`
	AutoBytes int `yaml:"auto_bytes" json:"auto_bytes"`
}

// configFields is Config without its methods, for decoding the mapping form.
type configFields Config

// UnmarshalYAML reads the mapping form or a mode alone (`tools: search`, the short form of
// {mode: search}); null (a key without a value) is the zero Config; a word that is no mode is
// refused (go-yaml's InterfaceUnmarshaler).
func (c *Config) UnmarshalYAML(unmarshal func(any) error) error {
	const want = "want all, search, auto or a mapping (mode, always_on, always_on_servers, max_active, auto_tools, auto_bytes)"
	var v any
	if unmarshal(&v) == nil && v == nil {
		*c = Config{}
		return nil
	}
	var word string
	if unmarshal(&word) == nil {
		if m := Mode(word); m != "" && m.Valid() {
			*c = Config{Mode: m}
			return nil
		}
		return fmt.Errorf("%s, got %q", want, word)
	}
	if unmarshal(new(map[string]any)) != nil {
		return errors.New(want)
	}
	var f configFields
	if err := unmarshal(&f); err != nil {
		return err
	}
	*c = Config(f)
	return nil
}

// Valid reports whether m is a mode a config may name ("" included: inherit).
func (m Mode) Valid() bool {
	switch m {
	case "", ModeAll, ModeSearch, ModeAuto:
		return true
	}
	return false
}

// Under returns c with each unset field taken from parent: an agent's tools under
// server.tools.
func (c Config) Under(parent Config) Config {
	if c.Mode == "" {
		c.Mode = parent.Mode
	}
	if c.AlwaysOn == nil {
		c.AlwaysOn = parent.AlwaysOn
	}
	if c.AlwaysOnServers == nil {
		c.AlwaysOnServers = parent.AlwaysOnServers
	}
	if c.MaxActive == 0 {
		c.MaxActive = parent.MaxActive
	}
	if c.AutoTools == 0 {
		c.AutoTools = parent.AutoTools
	}
	if c.AutoBytes == 0 {
		c.AutoBytes = parent.AutoBytes
	}
	return c
}

// WithDefaults returns c with every zero field set to its default: what applies.
func (c Config) WithDefaults() Config {
	if c.Mode == "" {
		c.Mode = ModeAll
	}
	if c.AlwaysOn == nil {
		c.AlwaysOn = DefaultAlwaysOn
	}
	if c.MaxActive <= 0 {
		c.MaxActive = DefaultMaxActive
	}
	if c.AutoTools <= 0 {
		c.AutoTools = DefaultAutoTools
	}
	if c.AutoBytes <= 0 {
		c.AutoBytes = DefaultAutoBytes
	}
	return c
}

// Applies returns the mode that applies to v: all or search, auto resolved by the threshold.
func (c Config) Applies(v *view.View) Mode {
	c = c.WithDefaults()
	switch c.Mode {
	case ModeSearch:
		return ModeSearch
	case ModeAuto:
		if len(v.Tools) > c.AutoTools || ListingBytes(v) > c.AutoBytes {
			return ModeSearch
		}
	}
	return ModeAll
}

// ListingBytes is the size of v's tools as a tools/list result carries them: the JSON of each
// tool's name, title, description, schemas and annotations.
func ListingBytes(v *view.View) int {
	n := 0
	for i := range v.Tools {
		b, err := json.Marshal(&v.Tools[i].Entry)
		if err == nil {
			n += len(b) + 1
		}
	}
	return n
}

// IsAlwaysOn reports whether t is listed in search mode without being activated.
func (c Config) IsAlwaysOn(t *view.Tool) bool {
	c = c.WithDefaults()
	for _, s := range c.AlwaysOnServers {
		if s == t.Capability {
			return true
		}
	}
	for _, p := range c.AlwaysOn {
		if ok, _ := path.Match(p, t.Name); ok {
			return true
		}
	}
	return false
}

// AlwaysOnTools returns the served names of v's always-on tools, in v's order.
func (c Config) AlwaysOnTools(v *view.View) []string {
	var names []string
	for i := range v.Tools {
		if c.IsAlwaysOn(&v.Tools[i]) {
			names = append(names, v.Tools[i].Name)
		}
	}
	return names
}

// Report is what compile shows of a path's tool exposure for a view.
type Report struct {
	// Mode is the configured mode; Applies is the one that applies to the view now (auto
	// resolved to all or search).
	Mode    Mode `json:"mode"`
	Applies Mode `json:"applies"`
	// AlwaysOn are the served names of the view's always-on tools, listed in search mode.
	AlwaysOn         []string `json:"always_on"`
	AlwaysOnPatterns []string `json:"always_on_patterns"`
	AlwaysOnServers  []string `json:"always_on_servers"`
	MaxActive        int      `json:"max_active"`
	// AutoTools and AutoBytes are auto's threshold; Tools and ListingBytes the view's figures
	// it is compared with.
	AutoTools    int `json:"auto_tools"`
	AutoBytes    int `json:"auto_bytes"`
	Tools        int `json:"tools"`
	ListingBytes int `json:"listing_bytes"`
	// Shadowed are the view's tools named like search mode's own (search_tools, call_tool):
	// hidden whenever search mode applies, so auto and search report them (a prefix on their
	// server brings them back).
	Shadowed []string `json:"shadowed"`
}

// NewReport returns c's Report for v.
func NewReport(c Config, v *view.View) Report {
	c = c.WithDefaults()
	r := Report{
		Mode: c.Mode, Applies: c.Applies(v), AlwaysOn: orEmpty(c.AlwaysOnTools(v)),
		AlwaysOnPatterns: orEmpty(c.AlwaysOn), AlwaysOnServers: orEmpty(c.AlwaysOnServers),
		MaxActive: c.MaxActive, AutoTools: c.AutoTools, AutoBytes: c.AutoBytes,
		Tools: len(v.Tools), ListingBytes: ListingBytes(v), Shadowed: []string{},
	}
	if c.Mode != ModeAll {
		for _, t := range v.Tools {
			if t.Name == SearchTool || t.Name == CallTool {
				r.Shadowed = append(r.Shadowed, t.Name)
			}
		}
	}
	return r
}

// WriteText writes r for a person: the mode, what applies, the threshold and the always-on
// tools, a line each.
func (r Report) WriteText(w io.Writer) error {
	applies := string(r.Applies)
	if r.Mode == ModeAuto {
		applies += fmt.Sprintf(" (auto: %d tools, %d listing bytes; search past %d tools or %d bytes)", r.Tools, r.ListingBytes, r.AutoTools, r.AutoBytes)
	}
	always := "none"
	if len(r.AlwaysOn) > 0 {
		always = strings.Join(r.AlwaysOn, ", ")
	}
	from := "patterns none"
	if len(r.AlwaysOnPatterns) > 0 {
		from = "patterns " + strings.Join(r.AlwaysOnPatterns, ", ")
	}
	if len(r.AlwaysOnServers) > 0 {
		from += "; servers " + strings.Join(r.AlwaysOnServers, ", ")
	}
	_, err := fmt.Fprintf(w, "mode: %s\napplies: %s\nalways on: %s (%s)\nmax active: %d\n", r.Mode, applies, always, from, r.MaxActive)
	if err == nil && len(r.Shadowed) > 0 {
		_, err = fmt.Fprintf(w, "hidden in search mode: %s (named like its own tools: give their server a prefix)\n", strings.Join(r.Shadowed, ", "))
	}
	return err
}

// orEmpty returns s, or an empty slice when s is nil, so JSON shows [] rather than null.
func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"time"

	"github.com/agentpool/agentpool/command"
	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/internal/regfile"
	"github.com/agentpool/agentpool/mcpcap"
	"github.com/agentpool/agentpool/plugin"
	"github.com/agentpool/agentpool/skill"
	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// Config is a parsed, validated configuration file. Each extension kind's section is that
// kind's own struct, with its keys and its validation; pool and extensions are the host's own.
type Config struct {
	// Skills is the skills section: local skill discovery.
	Skills skill.Config `yaml:"skills"`
	// Commands is the commands section: command-file discovery.
	Commands command.Config `yaml:"commands"`
	// MCPServers is the mcp_servers section: upstream MCP servers by name.
	MCPServers mcpcap.Servers `yaml:"mcp_servers"`
	// Pool is the pool section: the MCP connection pool's limits.
	Pool Pool `yaml:"pool"`
	// Extensions is the extensions section: limits on every extension.
	Extensions Extensions `yaml:"extensions"`
	// Plugins is the plugins section: Claude Code and Codex plugin folders and marketplaces,
	// whose skills, commands and servers the host adds.
	Plugins plugin.Config `yaml:"plugins"`
	// Agents is the agents section: each agent's own servers, skills and tool filter.
	Agents Agents `yaml:"agents"`
	// Server is the server section: how `agentpool serve` serves over HTTP.
	Server Server `yaml:"server"`
	// Pins is the pin policy of every server whose declaration has no pins key: off, warn or
	// block (decl.PinsOff …). Empty: warn for the user's own servers and plugins' servers,
	// block for a trusted project's.
	Pins Pins `yaml:"pins"`
	// Sandbox is the sandbox of every stdio server of the user's own config whose declaration
	// has no sandbox key (decl.Sandbox); nil: none. Skills' and plugins' servers get it too,
	// with their own folder readable.
	Sandbox *decl.Sandbox `yaml:"sandbox"`
	// Import lists JSON files whose mcpServers (Claude Desktop, Claude Code, Cursor) or
	// servers (VS Code) are added to mcp_servers; the file's own servers win a name both use.
	Import []string `yaml:"import" config:"expand,path"`

	// Path is the file the config was read from ("" when parsed from bytes without a name).
	Path string `yaml:"-"`
	// Warnings are what Parse found worth saying that is not an error, each as
	// "file:line:col: key: what": an imported server not used because another of its name
	// wins, a key of another application's that was ignored, a disabled server not imported.
	Warnings []string `yaml:"-"`
	// ImportsUnread reports that Import lists files that were not read (LoadOwn): MCPServers
	// holds the file's own servers only.
	ImportsUnread bool `yaml:"-"`

	data     []byte            // the file as Parse read it, for Declared
	imports  []*importedFile   // the imported files as Parse read them, for Declared
	imported map[string]string // imported server name → its file (Source)
}

// Declared returns the mcp_servers section as written, ${VAR} references not expanded (paths
// are still resolved): what the file itself declares, apart from the values of the user's
// environment. Trust fingerprints and prints it, so a rotated secret neither asks for trust
// again nor gets printed. It reads the file's text again on each call (only trust needs it,
// so Parse does not pay for it). Nil for a config not made by Parse, one without an
// mcp_servers section, or should the second reading fail (a ${VAR} where a number or duration
// goes fails Parse itself, since those fields are never expanded): use MCPServers then.
func (c *Config) Declared() mcpcap.Servers {
	if len(c.data) == 0 {
		return nil
	}
	return declared(c.Path, c.data, c.imports)
}

// DeclaredSandbox returns the top-level sandbox as written, ${VAR} references not expanded, as
// Declared reads the servers (reading the file's text again); nil when the config has none,
// was not made by Parse, or the second reading fails.
func (c *Config) DeclaredSandbox() *decl.Sandbox {
	if len(c.data) == 0 || c.Sandbox == nil {
		return nil
	}
	if d := declaredConfig(c.Path, c.data, nil); d != nil {
		return d.Sandbox
	}
	return nil
}

// Pool configures the MCP connection pool (connpool.Options).
type Pool struct {
	// MaxClients bounds the live clients of each pool partition (the shared servers, and each
	// session's own) beyond the servers the config declares; zero means connpool's default (20).
	MaxClients int `yaml:"max_clients"`
	// MaxTotalClients bounds the live clients of all partitions together, beyond the servers
	// the config declares; zero means connpool's default (4096).
	MaxTotalClients int `yaml:"max_total_clients"`
	// MaxSessionProcesses bounds the stdio processes of session-scoped servers (and skills'
	// own) across all sessions; zero means connpool's default (256).
	MaxSessionProcesses int `yaml:"max_session_processes"`
	// IdleTimeout is how long a released client stays; zero means connpool's default.
	IdleTimeout time.Duration `yaml:"idle_timeout"`
}

// Validate returns every problem of p, keyed under key (see Config.Validate).
func (p *Pool) Validate(key string) error {
	var errs []error
	if p.MaxClients < 0 {
		errs = append(errs, keyErrorf(key+".max_clients", "must not be negative, got %d", p.MaxClients))
	}
	if p.MaxTotalClients < 0 {
		errs = append(errs, keyErrorf(key+".max_total_clients", "must not be negative, got %d", p.MaxTotalClients))
	}
	if p.MaxSessionProcesses < 0 {
		errs = append(errs, keyErrorf(key+".max_session_processes", "must not be negative, got %d", p.MaxSessionProcesses))
	}
	if p.IdleTimeout < 0 {
		errs = append(errs, keyErrorf(key+".idle_timeout", "must not be negative, got %s", p.IdleTimeout))
	}
	return errors.Join(errs...)
}

// Pins is the top-level pins key: the default pin policy.
type Pins string

// Validate returns the problem of p, keyed under key (see Config.Validate).
func (p *Pins) Validate(key string) error {
	if err := decl.ValidatePins(string(*p)); err != nil {
		return keyErrorf(key, "%v", err)
	}
	return nil
}

// Extensions holds limits that apply to every extension.
type Extensions struct {
	// MaxCompositionDepth is the composition depth beyond which a warning is logged; zero
	// means the registry's default.
	MaxCompositionDepth int `yaml:"max_composition_depth"`
	// AllowedCommands, when present, lists the only executables a stdio server may run,
	// whether the config or a skill declares the server: each entry and each command are
	// compared after PATH lookup and symlink resolution (see mcpcap.CheckCommand).
	// Absent (nil) allows any command; an empty list (`allowed_commands: []`) allows none.
	AllowedCommands []string `yaml:"allowed_commands"`
	// HiddenText is the hidden_text of every MCP server that sets none (decl.Server.HiddenText):
	// "sanitize" (the default when empty) or "block".
	HiddenText string `yaml:"hidden_text"`
}

// Validate returns every problem of e, keyed under key (see Config.Validate).
func (e *Extensions) Validate(key string) error {
	if e.MaxCompositionDepth < 0 {
		return keyErrorf(key+".max_composition_depth", "must not be negative, got %d", e.MaxCompositionDepth)
	}
	if err := decl.ValidHiddenText(e.HiddenText); err != nil {
		return keyErrorf(key+".hidden_text", "%s", err)
	}
	return nil
}

// MaxFileSize is the largest config file Load reads: 1 MiB, some thousand times a real one.
const MaxFileSize = 1 << 20

// Load reads and validates the config file at path. It reads only a regular file (a named
// pipe or a device is refused at once, without blocking), of at most MaxFileSize bytes.
func Load(path string) (*Config, error) {
	data, err := regfile.ReadFile(path, MaxFileSize)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return Parse(path, data)
}

// LoadOwn is Load without reading the files of the import key: Import lists them (paths
// resolved) and ImportsUnread is set. It is how an untrusted project's config is read, to list
// what it declares itself without following it to files elsewhere.
func LoadOwn(path string) (*Config, error) {
	data, err := regfile.ReadFile(path, MaxFileSize)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return parse(path, data, false)
}

// Parse parses and validates config data; name is used in error messages and to resolve
// relative paths. The returned error lists every problem found, each as "name:line:col: what".
func Parse(name string, data []byte) (*Config, error) {
	return parse(name, data, true)
}

// parse is Parse, reading the import key's files only when withImports.
func parse(name string, data []byte, withImports bool) (*Config, error) {
	cfg := &Config{}
	data = bytes.TrimPrefix(data, []byte("\ufeff")) // a byte-order mark, as some editors write
	if len(bytes.TrimSpace(data)) == 0 {
		cfg.Path = name
		return cfg, nil
	}
	file, err := parser.ParseBytes(data, 0)
	if err != nil {
		return nil, syntaxError(name, data, err)
	}
	body, err := onlyDocument(name, file.Docs)
	if err != nil {
		return nil, err
	}
	if body == nil {
		cfg.Path = name
		return cfg, nil
	}
	p := &problems{name: name, root: body}
	if err := checkAliases(body, len(data)); err != nil {
		p.addKeyed(err)
		return nil, p.err()
	}
	w := &walker{p: p, lookup: os.LookupEnv}
	if name != "" {
		w.dir = filepath.Dir(name)
	}
	w.walk(body, reflect.TypeFor[Config](), "", fieldTags{}, func(n ast.Node) { body = n })
	if err := nodeToValue(body, cfg, yaml.Strict()); err != nil {
		p.errs = append(p.errs, decodeError(name, data, body, w.parents, err))
		return nil, p.err()
	}
	// Validation runs even when the walk found problems: every problem of the file is
	// reported at once (see addKeyed for those of values the walk could not read). The
	// imported servers are validated in their own files' terms, then added.
	p.addKeyed(cfg.Validate())
	cfg.Path = name
	var files []*importedFile
	if withImports {
		files = cfg.readImports(p, w.lookup)
	} else {
		cfg.ImportsUnread = len(cfg.Import) > 0
	}
	if len(p.errs) == 0 {
		p.errs = cfg.merge(files)
	}
	if err := p.err(); err != nil {
		return nil, &importsError{error: err, imports: slices.DeleteFunc(slices.Clone(cfg.Import), func(p string) bool { return !filepath.IsAbs(p) })}
	}
	cfg.data, cfg.imports = data, files
	return cfg, nil
}

// importsError is the refusal of a config whose import key was read (see ImportsOf).
type importsError struct {
	error
	imports []string
}

// Unwrap returns the problems, joined.
func (e *importsError) Unwrap() error { return e.error }

// ImportsOf returns the files that a config Load or Parse refused with err imports (its
// import key, paths resolved), when the refusal came after that key was read; nil otherwise.
// Whoever follows a config's files to reload it follows these too: the refused config may be
// the first to import a file, and fixing or creating that file is the edit that makes it
// valid.
func ImportsOf(err error) []string {
	var ie *importsError
	if errors.As(err, &ie) {
		return ie.imports
	}
	return nil
}

// declared parses data, which Parse accepted, again with ${VAR} references kept as written
// (see Config.Declared); nil when that cannot be read.
func declared(name string, data []byte, imports []*importedFile) mcpcap.Servers {
	if cfg := declaredConfig(name, data, imports); cfg != nil {
		return cfg.MCPServers
	}
	return nil
}

// declaredConfig is data, which Parse accepted, parsed again with ${VAR} references kept as
// written, its imports merged (see declared); nil when that cannot be read.
func declaredConfig(name string, data []byte, imports []*importedFile) *Config {
	file, err := parser.ParseBytes(bytes.TrimPrefix(data, []byte("\ufeff")), 0)
	if err != nil {
		return nil
	}
	body, err := onlyDocument(name, file.Docs)
	if err != nil || body == nil {
		return nil
	}
	p := &problems{name: name, root: body}
	w := &walker{p: p, keepEnv: true}
	if name != "" {
		w.dir = filepath.Dir(name)
	}
	w.walk(body, reflect.TypeFor[Config](), "", fieldTags{}, func(n ast.Node) { body = n })
	var cfg Config
	if len(p.errs) > 0 || nodeToValue(body, &cfg, yaml.Strict()) != nil {
		return nil
	}
	var files []*importedFile
	for _, im := range imports {
		f, errs := parseImport(im.path, im.data, nil, true, nil)
		if len(errs) > 0 {
			return nil
		}
		files = append(files, f)
	}
	cfg.Agents = nil // an agent's name clash was an error of Parse
	cfg.merge(files)
	return &cfg
}

// onlyDocument returns the body of the file's one YAML document (nil when it is empty). A
// second document with content, after "---", is an error at its first key rather than ignored
// with whatever keys it holds; a document without content (a trailing "---") is allowed.
func onlyDocument(name string, docs []*ast.DocumentNode) (ast.Node, error) {
	var body ast.Node
	for _, d := range docs {
		if d == nil || d.Body == nil {
			continue
		}
		if _, ok := d.Body.(*ast.DirectiveNode); ok {
			continue // %YAML 1.2 before the "---" of the one document
		}
		if body == nil {
			body = d.Body
			continue
		}
		p := &problems{name: name}
		what := "a second YAML document"
		if d.Start != nil && d.Start.Position != nil {
			what += fmt.Sprintf(` (after the "---" of line %d)`, d.Start.Position.Line)
		}
		first := d.Body
		if mv := mappingValues(d.Body); len(mv) > 0 {
			first = mv[0].Key
			what = keyString(mv[0].Key) + ": " + what
		}
		p.at(first, "%s: a config file holds one document; merge its keys into the first", what)
		return nil, p.err()
	}
	return body, nil
}

// validator is a section that checks itself: every problem keyed under key, the section's own
// YAML key (see Config.Validate).
type validator interface {
	Validate(key string) error
}

// commandChecker is a section that starts local processes: extensions.allowed_commands
// applies to it.
type commandChecker interface {
	CheckCommands(key string, allowed []string) error
}

// Validate checks every section that has a Validate(key string) error method, passing its
// YAML key, and applies extensions.allowed_commands to every section with a
// CheckCommands(key string, allowed []string) error method; sections may fill in what their
// values imply (a server's type). It returns every problem, joined. Parse calls it and places
// each problem in the file by the key its Key() string method returns (the section's own key
// when it has none); call it on a Config made in code.
func (c *Config) Validate() error {
	var errs []error
	v := reflect.ValueOf(c).Elem()
	for i := range v.NumField() {
		key := yamlName(v.Type().Field(i))
		if key == "-" || !v.Type().Field(i).IsExported() {
			continue
		}
		section := v.Field(i).Addr().Interface()
		if s, ok := section.(validator); ok {
			errs = append(errs, s.Validate(key))
		}
		if s, ok := section.(commandChecker); ok {
			errs = append(errs, s.CheckCommands(key, c.Extensions.AllowedCommands))
		}
	}
	if c.Sandbox != nil {
		errs = append(errs, c.Sandbox.Validate("sandbox"))
	}
	errs = append(errs, c.checkAgentServers())
	errs = append(errs, c.checkStateless())
	return errors.Join(errs...)
}

// keyError is one problem of a config key: "<key>: <what>". It wraps the error formatted with
// %w, if any.
type keyError struct {
	key, msg string
	cause    error
}

func keyErrorf(key, format string, a ...any) error {
	err := fmt.Errorf(format, a...)
	return &keyError{key: key, msg: err.Error(), cause: errors.Unwrap(err)}
}

func (e *keyError) Error() string { return e.key + ": " + e.msg }

// Unwrap returns the error the problem was made from, if any.
func (e *keyError) Unwrap() error { return e.cause }

// Key returns the YAML key the problem concerns, as in "pool.max_clients".
func (e *keyError) Key() string { return e.key }

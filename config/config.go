package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// Config is a parsed, validated configuration file.
type Config struct {
	Skills     Skills               `yaml:"skills"`
	Commands   Commands             `yaml:"commands"`
	MCPServers map[string]MCPServer `yaml:"mcp_servers"`
	Pool       Pool                 `yaml:"pool"`
	Extensions Extensions           `yaml:"extensions"`

	// Path is the file the config was read from ("" when parsed from bytes without a name).
	Path string `yaml:"-"`
}

// Skills configures local skill discovery.
type Skills struct {
	Dirs       []string      `yaml:"dirs"`
	Watch      *bool         `yaml:"watch"`
	Debounce   time.Duration `yaml:"debounce"`
	MaxFolders int           `yaml:"max_folders"`
}

// Commands configures command-file discovery.
type Commands struct {
	Dirs []string `yaml:"dirs"`
}

// MCPServer is one upstream MCP server.
type MCPServer struct {
	Type       string            `yaml:"type"` // stdio | streamable-http | sse; default from command/url
	Command    string            `yaml:"command"`
	Args       []string          `yaml:"args"`
	Env        map[string]string `yaml:"env"`
	Cwd        string            `yaml:"cwd"`
	URL        string            `yaml:"url"`
	Headers    map[string]string `yaml:"headers"`
	Lazy       bool              `yaml:"lazy"`
	Tools      []StaticTool      `yaml:"tools"`
	Scope      string            `yaml:"scope"` // pool | session
	Prefix     *string           `yaml:"prefix"`
	AllowTools []string          `yaml:"allow_tools"`
	DenyTools  []string          `yaml:"deny_tools"`
	Timeout    time.Duration     `yaml:"timeout"`
	Retry      Retry             `yaml:"retry"`
}

// StaticTool declares a tool of a lazy server so it can be listed before the server starts.
type StaticTool struct {
	Name        string         `yaml:"name"`
	Description string         `yaml:"description"`
	InputSchema map[string]any `yaml:"input_schema"`
	ReadOnly    bool           `yaml:"read_only"`
	Idempotent  bool           `yaml:"idempotent"`
}

// Retry is the reconnect and call-retry policy of a server.
type Retry struct {
	Attempts int           `yaml:"attempts"`
	Backoff  time.Duration `yaml:"backoff"`
	Calls    string        `yaml:"calls"` // safe | always | never
}

// Pool configures the MCP connection pool.
type Pool struct {
	MaxClients  int           `yaml:"max_clients"`
	IdleTimeout time.Duration `yaml:"idle_timeout"`
}

// Extensions holds limits that apply to every extension.
type Extensions struct {
	MaxCompositionDepth int      `yaml:"max_composition_depth"`
	AllowedCommands     []string `yaml:"allowed_commands"`
}

// Load reads and validates the config file at path.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return Parse(path, data)
}

// Parse parses and validates config data; name is used in error messages and to resolve
// relative paths. The returned error lists every problem found, each as "name:line:col: what".
func Parse(name string, data []byte) (*Config, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return &Config{Path: name}, nil
	}
	file, err := parser.ParseBytes(data, 0)
	if err != nil {
		return nil, yamlError(name, err)
	}
	if err := checkDurations(name, file); err != nil {
		return nil, err
	}
	var cfg Config
	if err := yaml.UnmarshalWithOptions(data, &cfg, yaml.Strict()); err != nil {
		return nil, yamlError(name, err)
	}
	cfg.Path = name
	p := &problems{name: name, file: file}
	cfg.expand(p)
	cfg.validate(p)
	if err := p.err(); err != nil {
		return nil, err
	}
	cfg.resolvePaths()
	return &cfg, nil
}

// ServerNames returns the configured MCP server names in sorted order.
func (c *Config) ServerNames() []string {
	names := make([]string, 0, len(c.MCPServers))
	for n := range c.MCPServers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func (c *Config) resolvePaths() {
	if c.Path == "" {
		return
	}
	dir := filepath.Dir(c.Path)
	abs := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	for i, d := range c.Skills.Dirs {
		c.Skills.Dirs[i] = abs(d)
	}
	for i, d := range c.Commands.Dirs {
		c.Commands.Dirs[i] = abs(d)
	}
	for name, s := range c.MCPServers {
		s.Cwd = abs(s.Cwd)
		c.MCPServers[name] = s
	}
}

// problems collects positioned errors.
type problems struct {
	name string
	file *ast.File
	errs []error
}

// addf records a problem at the node for a YAML path like "$.mcp_servers.x.command".
func (p *problems) addf(path, format string, args ...any) {
	line, col := p.position(path)
	msg := fmt.Sprintf(format, args...)
	if line > 0 {
		p.errs = append(p.errs, fmt.Errorf("%s:%d:%d: %s", p.name, line, col, msg))
		return
	}
	p.errs = append(p.errs, fmt.Errorf("%s: %s", p.name, msg))
}

func (p *problems) position(path string) (int, int) {
	yp, err := yaml.PathString(path)
	if err != nil || p.file == nil {
		return 0, 0
	}
	node, err := yp.FilterFile(p.file)
	if err != nil || node == nil || node.GetToken() == nil || node.GetToken().Position == nil {
		return 0, 0
	}
	pos := node.GetToken().Position
	return pos.Line, pos.Column
}

func (p *problems) err() error { return errors.Join(p.errs...) }

// durationKeys are the config's own duration keys ("500ms", "5m"), by the mapping that holds
// them: "" is the top level, "server" one mcp_servers entry, "retry" its retry block. Keys of
// the same names elsewhere (env, headers, a tool's input_schema) are user data.
var durationKeys = map[string]map[string]bool{
	"skills": {"debounce": true},
	"pool":   {"idle_timeout": true},
	"server": {"timeout": true},
	"retry":  {"backoff": true},
}

// checkDurations reports a malformed duration with its position; go-yaml's own error for it
// carries none.
func checkDurations(name string, file *ast.File) error {
	var errs []error
	check := func(holder string, mv *ast.MappingValueNode) {
		key := mv.Key.String()
		if !durationKeys[holder][key] {
			return
		}
		v := unwrap(mv.Value)
		if n, ok := v.(*ast.IntegerNode); ok {
			pos := n.GetToken().Position
			errs = append(errs, fmt.Errorf("%s:%d:%d: %s: %s has no unit (write e.g. %ss or %sms)",
				name, pos.Line, pos.Column, key, n.String(), n.String(), n.String()))
			return
		}
		s, ok := v.(*ast.StringNode)
		if !ok {
			return
		}
		if _, err := time.ParseDuration(s.Value); err != nil {
			pos := s.GetToken().Position
			errs = append(errs, fmt.Errorf("%s:%d:%d: %s: %q is not a duration (e.g. 500ms, 5s, 5m)",
				name, pos.Line, pos.Column, key, s.Value))
		}
	}
	for _, doc := range file.Docs {
		for _, top := range mappingValues(doc.Body) {
			switch top.Key.String() {
			case "skills", "pool":
				for _, mv := range mappingValues(top.Value) {
					check(top.Key.String(), mv)
				}
			case "mcp_servers":
				for _, server := range mappingValues(top.Value) {
					for _, mv := range mappingValues(server.Value) {
						check("server", mv)
						if mv.Key.String() == "retry" {
							for _, rv := range mappingValues(mv.Value) {
								check("retry", rv)
							}
						}
					}
				}
			}
		}
	}
	return errors.Join(errs...)
}

// unwrap returns the node an anchor or tag decorates.
func unwrap(n ast.Node) ast.Node {
	for {
		switch v := n.(type) {
		case *ast.AnchorNode:
			n = v.Value
		case *ast.TagNode:
			n = v.Value
		default:
			return n
		}
	}
}

// mappingValues returns the key-value pairs of a mapping node (none for anything else).
func mappingValues(n ast.Node) []*ast.MappingValueNode {
	switch v := unwrap(n).(type) {
	case *ast.MappingNode:
		return v.Values
	case *ast.MappingValueNode:
		return []*ast.MappingValueNode{v}
	}
	return nil
}

// yamlError turns a go-yaml error into "name:line:col: message".
func yamlError(name string, err error) error {
	var ye yaml.Error
	if errors.As(err, &ye) {
		if tk := ye.GetToken(); tk != nil && tk.Position != nil {
			return fmt.Errorf("%s:%d:%d: %s", name, tk.Position.Line, tk.Position.Column, ye.GetMessage())
		}
		return fmt.Errorf("%s: %s", name, ye.GetMessage())
	}
	return fmt.Errorf("%s: %w", name, err)
}

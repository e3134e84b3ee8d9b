package mcpcap

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/ext"
)

// Servers is the mcp_servers section of the config file: MCP servers by name, each as
// declared (decl.Server).
type Servers map[string]decl.Server

// Validate checks every server in name order, filling in each one's implied type, and returns
// every problem found (nil when none). Each problem is keyed under key: a server's problems
// under key.<name> (see decl.Server.Validate).
func (ss Servers) Validate(key string) error {
	var errs []error
	for _, name := range ss.Names() {
		at := key + "." + name
		switch {
		case name == "" || strings.ContainsAny(name, "/:\\ \t"):
			errs = append(errs, keyErrorf(at, "server name must be non-empty and hold no '/', ':', '\\' or spaces"))
		case strings.Contains(name, ext.ToolSep) || strings.HasSuffix(name, ext.ToolSep[:1]):
			// "a__b" + "__" + "t" would read back as server "a", tool "b__t"; "a_" + "__" + "t"
			// as "a", "_t".
			errs = append(errs, keyErrorf(at, "server name must not hold %q or end with %q: %q separates a server's name from its tools' names", ext.ToolSep, ext.ToolSep[:1], ext.ToolSep))
		}
		s := ss[name]
		errs = append(errs, s.Validate(at))
		ss[name] = s
	}
	return errors.Join(errs...)
}

// CheckCommands reports every stdio server whose command is not allowed (see
// CheckCommand), keyed under key.<name>.
func (ss Servers) CheckCommands(key string, allowed []string) error {
	var errs []error
	for _, name := range ss.Names() {
		errs = append(errs, CheckCommand(ss[name], key+"."+name, allowed, ""))
	}
	return errors.Join(errs...)
}

// Names returns the server names in sorted order.
func (ss Servers) Names() []string {
	names := make([]string, 0, len(ss))
	for n := range ss {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ConfigOf returns the Config New takes for the server declared as s under name. Prefix stays
// nil when s has none: the caller decides the default. It fails only for a static tool's
// input_schema that does not marshal to JSON (which decl.Server.Validate reports).
func ConfigOf(name string, s decl.Server) (Config, error) {
	tools := make([]ext.ToolEntry, 0, len(s.Tools))
	for _, t := range s.Tools {
		schema := t.InputSchema
		if schema == nil {
			schema = map[string]any{"type": "object"}
		}
		raw, err := json.Marshal(schema)
		if err != nil {
			return Config{}, fmt.Errorf("mcp server %q: tool %q: input_schema: %w", name, t.Name, err)
		}
		entry := ext.ToolEntry{Name: t.Name, Description: t.Description, InputSchema: raw}
		if t.ReadOnly || t.Idempotent {
			entry.Annotations = &ext.ToolAnnotations{ReadOnlyHint: t.ReadOnly, IdempotentHint: t.Idempotent}
		}
		tools = append(tools, entry)
	}
	var prefix *string
	if s.Prefix != nil {
		p := *s.Prefix
		prefix = &p
	}
	return Config{
		Name:       name,
		Server:     connpool.ServerConfig{Name: name, Server: s},
		Lazy:       s.Lazy,
		Tools:      tools,
		Scope:      s.Scope,
		Prefix:     prefix,
		AllowTools: s.AllowTools,
		DenyTools:  s.DenyTools,
		Timeout:    s.Timeout,
		Retry:      s.Retry,
	}, nil
}

// keyError is one problem of a config key: "<key>: <what>". Key lets package config place it
// in the file without parsing the message.
type keyError struct{ key, msg string }

func keyErrorf(key, format string, a ...any) error {
	return &keyError{key: key, msg: fmt.Sprintf(format, a...)}
}

func (e *keyError) Error() string { return e.key + ": " + e.msg }

// Key returns the YAML key the problem concerns, as in "mcp_servers.x.retry.calls".
func (e *keyError) Key() string { return e.key }

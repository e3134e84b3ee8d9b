package decl

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
)

// The permission values: what an editor's session (agentpool acp) does before a call of a
// server's tool.
const (
	// PermissionAsk: the editor's user is asked before every call.
	PermissionAsk = "ask"
	// PermissionAllow: the tool runs without asking.
	PermissionAllow = "allow"
	// PermissionDeny: the tool never runs; the model is told so.
	PermissionDeny = "deny"
)

// Permission is a server's permission key: `ask`, `allow` or `deny` for every tool, or a
// mapping of a default and tools by name or path.Match pattern (of several patterns that
// match a tool, the strictest wins). Without one (or for a tool neither names), the editor is
// asked unless the tool is annotated read-only.
type Permission struct {
	// Default applies to the tools Tools does not name; "" leaves them to their annotations.
	Default string `yaml:"default" json:"default,omitempty"`
	// Tools maps a tool's name as the server lists it, or a pattern, to a permission.
	Tools map[string]string `yaml:"tools" json:"tools,omitempty"`
}

// permissionFields is Permission without its methods, for decoding the mapping form.
type permissionFields Permission

// UnmarshalYAML reads the scalar or the mapping form.
func (p *Permission) UnmarshalYAML(unmarshal func(any) error) error {
	var word string
	if unmarshal(&word) == nil {
		*p = Permission{Default: word}
		return nil
	}
	var f permissionFields
	if err := unmarshal(&f); err != nil {
		return fmt.Errorf("permission must be ask, allow, deny or a mapping of default and tools: %w", err)
	}
	*p = Permission(f)
	return nil
}

// UnmarshalJSON reads the string or the object form.
func (p *Permission) UnmarshalJSON(b []byte) error {
	return p.UnmarshalYAML(func(v any) error { return json.Unmarshal(b, v) })
}

// Validate returns every problem of p, each keyed under key ("mcp_servers.x.permission").
func (p *Permission) Validate(key string) error {
	var errs []error
	check := func(at, v string, empty bool) {
		switch v {
		case PermissionAsk, PermissionAllow, PermissionDeny:
		case "":
			if !empty {
				errs = append(errs, keyErrorf(at, "empty permission (want ask, allow or deny)"))
			}
		default:
			errs = append(errs, keyErrorf(at, "unknown permission %q (want ask, allow or deny)", v))
		}
	}
	check(key+".default", p.Default, len(p.Tools) > 0)
	if len(p.Tools) == 0 && p.Default != "" {
		errs = errs[:0]
		check(key, p.Default, false)
	}
	for _, name := range p.sortedTools() {
		if _, err := path.Match(name, ""); err != nil {
			errs = append(errs, keyErrorf(key+".tools."+name, "bad pattern: %v", err))
		}
		check(key+".tools."+name, p.Tools[name], false)
	}
	return errors.Join(errs...)
}

// For returns the permission of the tool named tool of the server named server (tool may
// carry the "<server>__" prefix the host gives it): the tool's own by exact name, else the
// strictest (deny, then ask, then allow) of the patterns that match, else Default. Nil has
// none: "".
func (p *Permission) For(server, tool string) string {
	if p == nil {
		return ""
	}
	names := []string{tool}
	if bare, ok := strings.CutPrefix(tool, server+"__"); ok {
		names = append(names, bare)
	}
	for _, n := range names {
		if v, ok := p.Tools[n]; ok {
			return v
		}
	}
	strictness := map[string]int{PermissionAllow: 1, PermissionAsk: 2, PermissionDeny: 3}
	found := ""
	for _, pat := range p.sortedTools() {
		for _, n := range names {
			if ok, _ := path.Match(pat, n); ok && strictness[p.Tools[pat]] > strictness[found] {
				found = p.Tools[pat]
			}
		}
	}
	if found != "" {
		return found
	}
	return p.Default
}

func (p *Permission) sortedTools() []string {
	out := make([]string, 0, len(p.Tools))
	for n := range p.Tools {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

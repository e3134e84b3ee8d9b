package skill

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentpool/agentpool/decl"
)

// ServerDecl is one MCP server a skill declares for itself, in `mcp-servers` frontmatter or in a
// companion mcp.json ({"mcpServers": {...}}): the declaration (decl.Server) with its name and
// where it was written. The skill package only parses declarations; Options.Children turns them
// into capabilities.
type ServerDecl struct {
	// Name is the key the server was declared under.
	Name string `json:"name"`
	// Server is the declaration. Its Type is "stdio", "streamable-http" or "sse": when the
	// declaration has none it is "stdio" for a command and "streamable-http" for a url; "http"
	// is read as "streamable-http". Its Cwd is where a stdio server starts: the skill folder
	// when not declared, relative paths being taken from the skill folder (one holding a ${VAR}
	// reference is left as written, for whoever expands it to resolve). Values are as written:
	// ${VAR} references are the factory's to expand (the host does, with the config's rules),
	// so that trust fingerprints the text. Of the rest, only
	// type, command, args, env, cwd, url and headers are read; every other key is in Extra.
	decl.Server
	// Extra keeps every other key of the declaration (lazy, tools, timeout, ...) for the factory.
	Extra map[string]any `json:"extra,omitempty"`
	// Source is the file the declaration came from (SKILL.md or mcp.json).
	Source string `json:"source"`
	// Line is the line of the declaration in Source, 0 when unknown (JSON).
	Line int `json:"line,omitempty"`
}

// serverKeys are the ServerDecl fields read from a declaration; the rest go to Extra.
var serverKeys = map[string]bool{"type": true, "transport": true, "command": true, "args": true, "env": true,
	"cwd": true, "url": true, "headers": true}

// parseServers reads a map (or list with "name" keys) of server declarations. source and line
// label the findings; dir is the skill folder, used for cwd.
func parseServers(v any, dir, source string, line int) ([]ServerDecl, []finding) {
	var fs []finding
	warn := func(format string, args ...any) {
		fs = append(fs, finding{line: line, lenient: SeverityWarning, msg: fmt.Sprintf(format, args...)})
	}
	named := map[string]any{}
	switch t := v.(type) {
	case nil:
		return nil, nil
	case map[string]any:
		named = t
	case []any:
		for i, item := range t {
			m, ok := item.(map[string]any)
			name, _ := m["name"].(string)
			if !ok || name == "" {
				warn("MCP server #%d has no name; skipped", i+1)
				continue
			}
			named[name] = m
		}
	default:
		warn("MCP servers must be a mapping of server names to declarations, not %s; ignored", kindOf(v))
		return nil, fs
	}
	names := make([]string, 0, len(named))
	for n := range named {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []ServerDecl
	for _, name := range names {
		m, ok := named[name].(map[string]any)
		if !ok {
			warn("MCP server %q must be a mapping, not %s; skipped", name, kindOf(named[name]))
			continue
		}
		d, err := serverDecl(name, m, dir)
		if err != nil {
			warn("MCP server %q: %v; skipped", name, err)
			continue
		}
		d.Source, d.Line = source, line
		out = append(out, d)
	}
	return out, fs
}

// serverDecl builds one declaration from its decoded map.
func serverDecl(name string, m map[string]any, dir string) (ServerDecl, error) {
	d := ServerDecl{Name: name}
	str := func(key string) (string, error) {
		v, ok := m[key]
		if !ok || v == nil {
			return "", nil
		}
		s, ok := v.(string)
		if !ok {
			return "", fmt.Errorf("%s must be a string, not %s", key, kindOf(v))
		}
		return s, nil
	}
	var err error
	if d.Type, err = str("type"); err != nil {
		return d, err
	}
	if d.Type == "" {
		if d.Type, err = str("transport"); err != nil {
			return d, err
		}
	}
	if d.Command, err = str("command"); err != nil {
		return d, err
	}
	if d.URL, err = str("url"); err != nil {
		return d, err
	}
	if d.Cwd, err = str("cwd"); err != nil {
		return d, err
	}
	if a, ok := m["args"]; ok && a != nil {
		list, ok := a.([]any)
		if !ok {
			return d, fmt.Errorf("args must be a list, not %s", kindOf(a))
		}
		for _, x := range list {
			d.Args = append(d.Args, scalarString(x))
		}
	}
	if d.Env, err = stringMap(m["env"], "env"); err != nil {
		return d, err
	}
	if d.Headers, err = stringMap(m["headers"], "headers"); err != nil {
		return d, err
	}
	for k, v := range m {
		if !serverKeys[k] && k != "name" {
			if d.Extra == nil {
				d.Extra = map[string]any{}
			}
			d.Extra[k] = v
		}
	}
	switch strings.ToLower(d.Type) {
	case "":
		switch {
		case d.Command != "":
			d.Type = decl.TypeStdio
		case d.URL != "":
			d.Type = decl.TypeStreamableHTTP
		default:
			return d, errors.New("needs a command or a url")
		}
	case "stdio":
		d.Type = decl.TypeStdio
	case "http", "streamable-http", "streamable_http", "streamablehttp":
		d.Type = decl.TypeStreamableHTTP
	case "sse":
		d.Type = decl.TypeSSE
	default:
		return d, fmt.Errorf("unknown type %q (want stdio, streamable-http or sse)", d.Type)
	}
	if d.Type == decl.TypeStdio && d.Command == "" {
		return d, errors.New("stdio server needs a command")
	}
	if d.Type != decl.TypeStdio && d.URL == "" {
		return d, fmt.Errorf("%s server needs a url", d.Type)
	}
	if d.Type == decl.TypeStdio {
		switch {
		case d.Cwd == "":
			d.Cwd = dir
		case !filepath.IsAbs(d.Cwd) && !strings.Contains(d.Cwd, "${"):
			d.Cwd = filepath.Join(dir, d.Cwd)
		}
	}
	return d, nil
}

// stringMap reads a map of strings, stringifying scalar values.
func stringMap(v any, what string) (map[string]string, error) {
	if v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s must be a mapping, not %s", what, kindOf(v))
	}
	out := make(map[string]string, len(m))
	for k, x := range m {
		out[k] = scalarString(x)
	}
	return out, nil
}

// parseMCPJSON reads a companion mcp.json: {"mcpServers": {name: declaration}}.
func parseMCPJSON(data []byte, dir, path string) ([]ServerDecl, []finding) {
	var doc struct {
		MCPServers map[string]any `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		line := 0
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line = 1 + strings.Count(string(data[:min(int(se.Offset), len(data))]), "\n")
		}
		return nil, []finding{{line: line, lenient: SeverityWarning, msg: "mcp.json is not valid JSON: " + err.Error() + "; its servers are ignored"}}
	}
	if doc.MCPServers == nil {
		return nil, []finding{{line: 1, lenient: SeverityWarning, msg: "mcp.json has no \"mcpServers\" object; nothing declared"}}
	}
	return parseServers(doc.MCPServers, dir, path, 0)
}

// mergeServers adds mcp.json declarations to the frontmatter ones; the frontmatter wins a name
// declared in both, with a finding.
func mergeServers(front, file []ServerDecl) ([]ServerDecl, []finding) {
	var fs []finding
	have := map[string]bool{}
	for _, d := range front {
		have[d.Name] = true
	}
	out := front
	for _, d := range file {
		if have[d.Name] {
			fs = append(fs, finding{lenient: SeverityWarning,
				msg: fmt.Sprintf("MCP server %q is declared in SKILL.md and in mcp.json; the SKILL.md declaration wins", d.Name)})
			continue
		}
		out = append(out, d)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, fs
}

package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/internal/regfile"
	"github.com/agentpool/agentpool/mcpcap"
	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

// This file reads the JSON files of the import key: the mcpServers map of Claude Desktop,
// Claude Code (.mcp.json) and Cursor, or VS Code's servers map (.vscode/mcp.json). JSON is
// YAML, so the file is parsed by the YAML parser, positions and all, and each entry is
// decoded into decl.Server by the same walk and decoder as the YAML's own servers: the
// same keys, the same ${VAR} expansion, the same validation. What differs is said in the
// package doc ("import").

// MaxImports is how many files the import key may list.
const MaxImports = 32

// importTypes maps the transport types the JSON files write to agentpool's.
var importTypes = map[string]string{
	"stdio":           "stdio",
	"http":            "streamable-http",
	"streamable-http": "streamable-http",
	"sse":             "sse",
}

// importedFile is one file of the import key, read.
type importedFile struct {
	path string
	data []byte // as read, for Config.Declared
	// key is the file's map key, "mcpServers" or "servers".
	key     string
	servers mcpcap.Servers
	order   []string          // the servers' names in the file's order
	where   map[string]string // "path:line:col" of each server's key
	notes   []string          // warnings: keys ignored, servers disabled
}

// readImports reads every file of c.Import (paths already expanded and resolved by the walk).
// A problem reading one (a missing file, a folder) is placed at its import[i] in the YAML; a
// problem inside one names that file, its line and its key.
func (c *Config) readImports(p *problems, lookup func(string) (string, bool)) []*importedFile {
	var files []*importedFile
	seen := map[string]string{}
	for i, path := range c.Import {
		key := fmt.Sprintf("import[%d]", i)
		switch {
		case p.unreadUnder(key):
			continue // the walk said what is wrong with it
		case i >= MaxImports:
			p.addKeyed(keyErrorf(key, "at most %d files may be imported", MaxImports))
			return files
		case path == "":
			p.addKeyed(keyErrorf(key, "an empty path"))
			continue
		}
		if first, ok := seen[filepath.Clean(path)]; ok {
			p.addKeyed(keyErrorf(key, "%s is imported already, by %s", path, first))
			continue
		}
		seen[filepath.Clean(path)] = key
		data, err := regfile.ReadFile(path, MaxFileSize)
		if err != nil {
			p.addKeyed(keyErrorf(key, "%w", err))
			continue
		}
		f, errs := parseImport(path, data, lookup, false, c.Extensions.AllowedCommands)
		p.errs = append(p.errs, errs...)
		if f != nil {
			files = append(files, f)
		}
	}
	return files
}

// parseImport reads one imported file's servers, each validated as a server of mcp_servers
// is, with its problems named in the file's own terms: "mcp.json:4:7: mcpServers.x.url: …".
// keepEnv leaves ${VAR} as written (Config.Declared). allowed is extensions.allowed_commands.
func parseImport(path string, data []byte, lookup func(string) (string, bool), keepEnv bool, allowed []string) (*importedFile, []error) {
	f, errs := parseServerFile(path, data, serverFileOptions{lookup: lookup, keepEnv: keepEnv, allowed: allowed})
	if len(errs) > 0 {
		return nil, errs
	}
	return f, nil
}

// serverFileOptions are how parseServerFile reads a file.
type serverFileOptions struct {
	lookup  func(string) (string, bool) // ${VAR}'s values
	keepEnv bool                        // leave ${VAR} as written (Config.Declared)
	allowed []string                    // extensions.allowed_commands
	// bare accepts a file that is the server map itself, with no mcpServers or servers key
	// (a plugin's .mcp.json often is).
	bare bool
	// dir resolves a relative cwd; "" means the file's folder.
	dir string
}

// parseServerFile reads one file's servers as parseImport does, and returns the good ones
// with every problem: a server with a problem is left out, the others kept. The file is nil
// when it has no servers to read at all.
func parseServerFile(path string, data []byte, o serverFileOptions) (*importedFile, []error) {
	lookup, keepEnv, allowed := o.lookup, o.keepEnv, o.allowed
	f := &importedFile{path: path, data: data, servers: mcpcap.Servers{}, where: map[string]string{}}
	p := &problems{name: path}
	text := stripJSONComments(bytes.TrimPrefix(data, []byte("\ufeff")))
	if len(bytes.TrimSpace(text)) == 0 {
		p.at(nil, "top level: the file is empty: want a JSON object holding mcpServers (Claude Desktop, Claude Code, Cursor) or servers (VS Code)")
		return nil, p.errs
	}
	file, err := parser.ParseBytes(text, 0)
	if err != nil {
		return nil, []error{syntaxError(path, text, err)}
	}
	body, err := onlyDocument(path, file.Docs)
	if err != nil {
		return nil, []error{err}
	}
	p.root = body
	if err := checkAliases(body, len(text)); err != nil {
		p.addKeyed(err)
		return nil, p.errs
	}
	var list ast.Node
	if _, ok := unwrap(body).(*ast.MappingNode); !ok {
		if _, ok := unwrap(body).(*ast.MappingValueNode); !ok {
			p.at(body, "top level: want a JSON object holding mcpServers or servers, got %s", nodeWords(body))
			return nil, p.errs
		}
	}
	for _, mv := range mappingValues(body) {
		switch k := keyString(mv.Key); k {
		case "mcpServers", "servers":
			if list != nil {
				p.at(mv.Key, "%s: the file holds %s already: one file lists its servers under one key", k, f.key)
				continue
			}
			f.key, list = k, mv.Value
		case "import":
			p.at(mv.Key, "import: imports do not nest: list the file in agentpool.yaml's import instead")
		}
		// Any other key is the other application's own (Claude Desktop's preferences, VS
		// Code's inputs): not read.
	}
	if list == nil && o.bare && len(p.errs) == 0 && isServerMap(body) {
		list = body
	}
	if list == nil {
		if len(p.errs) == 0 {
			p.at(body, "top level: no mcpServers (Claude Desktop, Claude Code, Cursor) or servers (VS Code) key")
		}
		return nil, p.errs
	}
	if _, null := unwrap(list).(*ast.NullNode); !null && mappingValues(list) == nil {
		if m, ok := unwrap(list).(*ast.MappingNode); !ok || len(m.Values) > 0 {
			p.at(list, "%s: want an object of servers by name, got %s", f.key, nodeWords(list))
			return nil, p.errs
		}
	}
	dir := o.dir
	if dir == "" {
		dir = filepath.Dir(path)
	}
	w := &walker{p: p, lookup: lookup, keepEnv: keepEnv, dir: dir}
	bad := map[string]bool{} // servers with a problem: left out
	for _, mv := range mappingValues(list) {
		name := keyString(mv.Key)
		at := name
		if f.key != "" {
			at = f.key + "." + name
		}
		before := len(p.errs)
		entry, disabled := f.entry(p, mv.Value, at)
		if entry == nil {
			continue
		}
		f.where[name] = p.place(mv.Key)
		if disabled {
			continue
		}
		w.walk(entry, reflect.TypeFor[decl.Server](), at, fieldTags{}, func(n ast.Node) { entry = n })
		var spec decl.Server
		if err := nodeToValue(entry, &spec, yaml.Strict()); err != nil {
			p.errs = append(p.errs, decodeError(path, text, body, w.parents, err))
			continue
		}
		bad[name] = len(p.errs) > before
		f.servers[name] = spec
		f.order = append(f.order, name)
	}
	// Each server is validated alone, so that its problems tell which servers to leave out;
	// the order of the problems is that of validating them all at once.
	check := func(one func(mcpcap.Servers) error) {
		for _, name := range f.servers.Names() {
			ss := mcpcap.Servers{name: f.servers[name]}
			before := len(p.errs)
			p.addKeyed(rekey(one(ss), f.key == ""))
			f.servers[name] = ss[name]
			bad[name] = bad[name] || len(p.errs) > before
		}
	}
	check(func(ss mcpcap.Servers) error { return ss.Validate(f.key) })
	check(func(ss mcpcap.Servers) error { return ss.CheckCommands(f.key, allowed) })
	for name, b := range bad {
		if b {
			delete(f.servers, name)
		}
	}
	f.order = slices.DeleteFunc(f.order, func(n string) bool { return bad[n] })
	return f, p.errs
}

// isServerMap reports whether n is an object of servers by name: every value an object, one
// at least holding command, url or type.
func isServerMap(n ast.Node) bool {
	mvs := mappingValues(n)
	server := false
	for _, mv := range mvs {
		if mappingValues(mv.Value) == nil {
			return false
		}
		for _, kv := range mappingValues(mv.Value) {
			switch keyString(kv.Key) {
			case "command", "url", "type":
				server = true
			}
		}
	}
	return server
}

// rekey drops the leading '.' of the keys of err's problems when bare: validation keys a
// server under "<key>.<name>", and a bare server map has no key.
func rekey(err error, bare bool) error {
	if err == nil || !bare {
		return err
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var errs []error
		for _, e := range j.Unwrap() {
			errs = append(errs, rekey(e, bare))
		}
		return errors.Join(errs...)
	}
	var keyed interface{ Key() string }
	if !errors.As(err, &keyed) || !strings.HasPrefix(keyed.Key(), ".") {
		return err
	}
	k := keyed.Key()
	return &keyError{key: k[1:], msg: strings.TrimPrefix(err.Error(), k+": "), cause: err}
}

// entry returns the server entry n at key in agentpool's words: its type (http:
// streamable-http), a timeout in seconds (Cline's) as a duration, the keys of other
// applications that mean something agentpool has as agentpool's (see foreignKeys), and
// without every other key agentpool does not know, each a warning; nil after a problem.
// disabled reports "disabled": true or "enabled": false: the server is not imported, and a
// warning says so.
func (f *importedFile) entry(p *problems, n ast.Node, key string) (_ ast.Node, disabled bool) {
	var tk *token.Token
	flow := true
	switch m := unwrap(n).(type) {
	case *ast.MappingNode:
		tk, flow = m.Start, m.IsFlowStyle
	case *ast.MappingValueNode:
		tk, flow = m.GetToken(), false
	default:
		p.at(n, "%s: want an object (\"command\": …, or \"url\": …), got %s", key, nodeWords(n))
		return nil, false
	}
	var kept []*ast.MappingValueNode
	for _, mv := range mappingValues(n) {
		k := keyString(mv.Key)
		at := key + "." + k
		switch v := unwrap(mv.Value).(type) {
		case *ast.BoolNode:
			if k == "disabled" || k == "enabled" {
				if v.Value == (k == "disabled") {
					disabled = true
					why := map[string]string{"disabled": "disabled", "enabled": "enabled: false"}[k]
					f.notes = append(f.notes, fmt.Sprintf("%s: %s: %s: not imported", p.place(mv.Key), key, why))
				}
				continue
			}
		case *ast.StringNode:
			if k == "type" {
				t, ok := importTypes[v.Value]
				if !ok {
					p.at(mv.Value, "%s: unknown type %q (want stdio, http or sse)", at, v.Value)
					return nil, false
				}
				v.Value = t
			}
		case *ast.IntegerNode, *ast.FloatNode:
			if k == "timeout" { // Cline's: seconds
				s := mv.Value.GetToken().Value + "s"
				mv.Value = ast.String(token.New(s, s, mv.Value.GetToken().Position))
			}
		}
		if k == "disabled" || k == "enabled" {
			p.at(mv.Value, "%s: want true or false, got %s", at, nodeWords(mv.Value))
			return nil, false
		}
		if why, ok := ideKeys[k]; ok {
			f.notes = append(f.notes, fmt.Sprintf("%s: %s: ignored: %s", p.place(mv.Key), at, why))
			continue
		}
		kept = append(kept, mv)
	}
	m := ast.Mapping(tk, flow, f.foreign(p, kept, key)...)
	f.unknown(p, m, serverType, key)
	return m, disabled
}

// merge adds the imported files' servers to c.MCPServers: the YAML's own servers win a name
// both use, an earlier file wins over a later one, and each such collision is a warning; a
// server named like one of an agent's is an error, as in the YAML. It records where each
// imported server comes from (Source), and every warning in c.Warnings.
func (c *Config) merge(files []*importedFile) []error {
	var errs []error
	from := map[string]string{} // imported name → its file
	for _, f := range files {
		c.Warnings = append(c.Warnings, f.notes...)
		for _, name := range f.order {
			at := f.where[name] + ": " + f.key + "." + name
			if _, own := c.MCPServers[name]; own && from[name] == "" {
				c.Warnings = append(c.Warnings, fmt.Sprintf("%s: not imported: %s declares mcp_servers.%s, which wins", at, c.sourceName(), name))
				continue
			}
			if first, ok := from[name]; ok {
				c.Warnings = append(c.Warnings, fmt.Sprintf("%s: not imported: %s, imported before, declares it, and wins", at, first))
				continue
			}
			for _, agent := range c.Agents.Names() {
				if _, ok := c.Agents[agent].MCPServers[name]; ok {
					errs = append(errs, fmt.Errorf("%s: server %q is also agents.%s.mcp_servers.%s, and an agent sees both: give one another name", at, name, agent, name))
				}
			}
			if c.MCPServers == nil {
				c.MCPServers = mcpcap.Servers{}
			}
			c.MCPServers[name] = f.servers[name]
			from[name] = f.path
		}
	}
	c.imported = from
	return errs
}

// sourceName is the config's file for messages.
func (c *Config) sourceName() string {
	if c.Path == "" {
		return "the config"
	}
	return c.Path
}

// Source returns the file that declares mcp_servers[name]: an imported JSON file, or the
// config's own (Path).
func (c *Config) Source(name string) string {
	if f, ok := c.imported[name]; ok {
		return f
	}
	return c.Path
}

// place is "name:line:col" of node n.
func (p *problems) place(n ast.Node) string {
	if tk := n.GetToken(); tk != nil && tk.Position != nil {
		return fmt.Sprintf("%s:%d:%d", p.name, tk.Position.Line, tk.Position.Column)
	}
	return p.name
}

// nodeWords names the kind of a value as a JSON file's writer knows it.
func nodeWords(n ast.Node) string {
	switch unwrap(n).(type) {
	case *ast.MappingNode, *ast.MappingValueNode:
		return "an object"
	case *ast.SequenceNode:
		return "a list"
	case *ast.StringNode, *ast.LiteralNode:
		return "a string"
	case *ast.IntegerNode, *ast.FloatNode:
		return "a number"
	case *ast.BoolNode:
		return "true or false"
	case *ast.NullNode, nil:
		return "null"
	}
	return "something else"
}

// stripJSONComments blanks out // and /* */ comments outside strings (VS Code writes JSON
// with comments), keeping every line and column where it was.
//
// Only a file whose first thing but comments is '{' is JSON to it (VS Code's files may open
// with a comment): an unquoted YAML scalar (url: http://h) would lose what follows its "//".
func stripJSONComments(data []byte) []byte {
	if !bytes.Contains(data, []byte("/")) || !startsObject(data) {
		return data
	}
	out := bytes.Clone(data)
	inString := false
	for i := 0; i < len(out); i++ {
		switch c := out[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case !inString && c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case !inString && c == '/' && i+1 < len(out) && out[i+1] == '*':
			end := bytes.Index(out[i+2:], []byte("*/"))
			stop := len(out)
			if end >= 0 {
				stop = i + 2 + end + 2
			}
			for ; i < stop; i++ {
				if out[i] != '\n' && out[i] != '\r' {
					out[i] = ' '
				}
			}
			i--
		}
	}
	return out
}

// startsObject reports whether the first thing in data but blanks and comments is '{'.
func startsObject(data []byte) bool {
	for {
		data = bytes.TrimLeft(data, " \t\r\n")
		switch {
		case bytes.HasPrefix(data, []byte("//")):
			i := bytes.IndexByte(data, '\n')
			if i < 0 {
				return false
			}
			data = data[i:]
		case bytes.HasPrefix(data, []byte("/*")):
			i := bytes.Index(data[2:], []byte("*/"))
			if i < 0 {
				return false
			}
			data = data[2+i+2:]
		default:
			return len(data) > 0 && data[0] == '{'
		}
	}
}

// ParseServers reads the MCP servers of one JSON file of a plugin (its .mcp.json, or its
// manifest when the manifest declares them inline): the servers by name under mcpServers (or
// servers), or the file itself being that map, as plugin .mcp.json files often are. Each
// server is read as an mcp_servers entry of an imported file is (see the package doc,
// "Import"): ${NAME} and ${NAME:-default} expanded from vars first, then the environment; a
// relative cwd resolved against vars' CLAUDE_PLUGIN_ROOT when given (the plugin's folder, as
// Codex resolves it), else the file's folder; validated, allowed (extensions.allowed_commands)
// included. It returns the good servers and every problem, each naming path, its line and
// column and the server's key; a server with a problem is left out, the others kept. What an
// imported file's warnings say (a key ignored, a server disabled) is among the problems, its
// server kept. No problem quotes an env or header value.
func ParseServers(path string, data []byte, vars map[string]string, allowed []string) (mcpcap.Servers, []error) {
	lookup := func(name string) (string, bool) {
		if v, ok := vars[name]; ok {
			return v, true
		}
		return os.LookupEnv(name)
	}
	f, errs := parseServerFile(path, data, serverFileOptions{lookup: lookup, allowed: allowed, bare: true, dir: vars["CLAUDE_PLUGIN_ROOT"]})
	if f == nil {
		return nil, errs
	}
	for _, n := range f.notes {
		errs = append(errs, errors.New(n))
	}
	if len(f.servers) == 0 {
		return nil, errs
	}
	return f.servers, errs
}

// DeclaredServers reads the servers of one of a plugin's JSON files as ParseServers does, but
// as written: ${VAR} references left unexpanded, as Config.Declared leaves the config's, so
// that trust neither fingerprints nor prints the values of the user's environment (a rotated
// secret asks nothing). vars locate the plugin's folder (a relative cwd). A server that
// cannot be read so is not in it, nor is anything for a file with no servers to read.
func DeclaredServers(path string, data []byte, vars map[string]string) mcpcap.Servers {
	f, _ := parseServerFile(path, data, serverFileOptions{keepEnv: true, bare: true, dir: vars["CLAUDE_PLUGIN_ROOT"]})
	if f == nil {
		return nil
	}
	return f.servers
}

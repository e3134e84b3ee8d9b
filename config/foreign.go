package config

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/agentpool/agentpool/decl"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"
)

// This file maps what other applications write in a server entry of an imported JSON file
// (Codex, Claude Code, Cline) to agentpool's keys, and drops, with a warning, every key that
// agentpool has no use for: a foreign file is the other application's, so a key agentpool does
// not know is never a reason to refuse the config.

// ideKeys are keys other applications write in a server entry that agentpool has no use for:
// the entry is imported without them and a warning says why each was ignored.
var ideKeys = map[string]string{
	"autoApprove":    "agentpool asks no approval per tool (allow_tools and deny_tools filter the tools served)",
	"alwaysAllow":    "agentpool asks no approval per tool (allow_tools and deny_tools filter the tools served)",
	"envFile":        "agentpool reads no env file: list the variables under env (${VAR} takes agentpool's own)",
	"dev":            "VS Code's development mode is VS Code's",
	"description":    "agentpool does not show a server's description",
	"required":       "agentpool starts without a server that fails and says so; none is required",
	"oauth_resource": "agentpool's auth has no resource to set: it takes the resource the server's metadata names",
	"scopes":         "agentpool's OAuth client is declared under auth (auth.scopes)",
	"oauth":          "agentpool's OAuth client is declared under auth (agentpool login)",
	"headersHelper":  "agentpool runs no command for headers: list them under headers (${VAR} takes agentpool's own)",
}

// foreignKey is a key another application writes whose meaning agentpool has: to is
// agentpool's key, and conv turns the value into one of it (or says why it cannot).
type foreignKey struct {
	to   string
	conv func(v ast.Node) (ast.Node, error)
}

// foreignKeys are the keys of Codex's, Claude Code's and Cline's server entries that mean
// something agentpool has.
var foreignKeys = map[string]foreignKey{
	"startup_timeout_sec": {"startup_timeout", number("s")},
	"startup_timeout_ms":  {"startup_timeout", number("ms")},
	"tool_timeout_sec":    {"timeout", number("s")},
	"enabled_tools":       {"allow_tools", toolNames},
	"disabled_tools":      {"deny_tools", toolNames},
	"disabledTools":       {"deny_tools", toolNames},
	"env_vars":            {"env_passthrough", nameList},
	"http_headers":        {"headers", object},
	"bearer_token_env_var": {"headers", func(v ast.Node) (ast.Node, error) {
		name, err := envName(v)
		if err != nil {
			return nil, err
		}
		return header(v, "Authorization", "Bearer ${"+name+"}"), nil
	}},
	// Codex leaves out a header whose variable is not set: ${V:-}, so that it does not refuse
	// the config as ${V} would.
	"env_http_headers": {"headers", func(v ast.Node) (ast.Node, error) {
		if _, ok := unwrap(v).(*ast.MappingNode); !ok && mappingValues(v) == nil {
			return nil, fmt.Errorf("want an object of header names and variable names, got %s", nodeWords(v))
		}
		var out []*ast.MappingValueNode
		for _, mv := range mappingValues(v) {
			name, err := envName(mv.Value)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", keyString(mv.Key), err)
			}
			out = append(out, header(mv.Key, keyString(mv.Key), "${"+name+":-}").Values...)
		}
		return ast.Mapping(v.GetToken(), true, out...), nil
	}},
}

// number converts a number (Codex's seconds, which may have a fraction, or milliseconds) into
// a duration of that unit.
func number(unit string) func(ast.Node) (ast.Node, error) {
	return func(v ast.Node) (ast.Node, error) {
		switch unwrap(v).(type) {
		case *ast.IntegerNode, *ast.FloatNode:
		default:
			return nil, fmt.Errorf("want a number, got %s", nodeWords(v))
		}
		s := v.GetToken().Value + unit
		if d, err := time.ParseDuration(s); err != nil || d < 0 {
			return nil, fmt.Errorf("%s is not a duration agentpool can hold", v.GetToken().Value)
		}
		return ast.String(token.New(s, s, v.GetToken().Position)), nil
	}
}

// nameList accepts a list of strings as it is.
func nameList(v ast.Node) (ast.Node, error) {
	seq, ok := unwrap(v).(*ast.SequenceNode)
	if !ok {
		return nil, fmt.Errorf("want a list of names, got %s", nodeWords(v))
	}
	for _, e := range seq.Values {
		if _, ok := unwrap(e).(*ast.StringNode); !ok {
			return nil, fmt.Errorf("want a list of names, got %s in it", nodeWords(e))
		}
	}
	return v, nil
}

// toolNames turns a list of tool names into path.Match patterns matching each name alone. An
// empty enabled_tools (no tool served) becomes deny_tools: ["*"] (see allowedLessDenied).
func toolNames(v ast.Node) (ast.Node, error) {
	if _, err := nameList(v); err != nil {
		return nil, err
	}
	seq := unwrap(v).(*ast.SequenceNode)
	quote := strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`)
	for _, e := range seq.Values {
		s := unwrap(e).(*ast.StringNode)
		s.Value = quote.Replace(s.Value)
	}
	return v, nil
}

// object accepts an object as it is.
func object(v ast.Node) (ast.Node, error) {
	if _, ok := unwrap(v).(*ast.MappingNode); !ok && mappingValues(v) == nil {
		return nil, fmt.Errorf("want an object, got %s", nodeWords(v))
	}
	return v, nil
}

// envName is the environment variable name v holds.
func envName(v ast.Node) (string, error) {
	s, ok := unwrap(v).(*ast.StringNode)
	if !ok || !validEnvName(s.Value) {
		return "", fmt.Errorf("want the name of an environment variable, got %s", nodeWords(v))
	}
	return s.Value, nil
}

// header is an object of one header, name: value, placed at at's position.
func header(at ast.Node, name, value string) *ast.MappingNode {
	pos := at.GetToken().Position
	return ast.Mapping(at.GetToken(), true, ast.MappingValue(at.GetToken(),
		ast.String(token.New(name, name, pos)), ast.String(token.New(value, value, pos))))
}

// foreign rewrites the keys of server entry kvs at key (mcpServers.x) that other applications
// write: each of foreignKeys becomes agentpool's key, the first of several that become one
// key winning (and agentpool's own key over all of them); headers are merged. Every key it
// cannot use is a warning in notes, naming the file, its line and the key.
func (f *importedFile) foreign(p *problems, kvs []*ast.MappingValueNode, key string) []*ast.MappingValueNode {
	own := map[string]bool{}
	for _, mv := range kvs {
		if _, ok := fieldByYAMLName(serverType, keyString(mv.Key)); ok {
			own[keyString(mv.Key)] = true
		}
	}
	var kept []*ast.MappingValueNode
	type foreignHeader struct {
		h  *ast.MappingValueNode
		at string // the foreign key that gives it
		kn ast.Node
	}
	var headers []foreignHeader // merged under headers at the end
	from := map[string]string{} // agentpool's key → the foreign key that set it
	for _, mv := range kvs {
		k := keyString(mv.Key)
		at := key + "." + k
		fk, ok := foreignKeys[k]
		if !ok {
			kept = append(kept, mv)
			continue
		}
		v, err := fk.conv(mv.Value)
		switch {
		case err != nil:
			f.note(p, mv.Key, "%s: ignored: %v", at, err)
			continue
		case fk.to == "headers":
			for _, h := range mappingValues(v) {
				headers = append(headers, foreignHeader{h, at, mv.Key})
			}
			continue
		case own[fk.to]:
			f.note(p, mv.Key, "%s: ignored: %s is given, and wins", at, fk.to)
			continue
		case from[fk.to] != "":
			f.note(p, mv.Key, "%s: ignored: %s gives %s already", at, from[fk.to], fk.to)
			continue
		}
		from[fk.to] = k
		kept = append(kept, ast.MappingValue(mv.GetToken(), ast.String(token.New(fk.to, fk.to, mv.Key.GetToken().Position)), v))
	}
	if from["allow_tools"] == "enabled_tools" {
		kept = allowedLessDenied(kept)
	}
	if len(headers) == 0 {
		return kept
	}
	var into *ast.MappingValueNode
	for _, mv := range kept {
		if keyString(mv.Key) == "headers" {
			into = mv
		}
	}
	if into == nil {
		tk := headers[0].kn.GetToken()
		into = ast.MappingValue(tk, ast.String(token.New("headers", "headers", tk.Position)), ast.Mapping(tk, true))
		kept = append(kept, into)
	}
	m, ok := unwrap(into.Value).(*ast.MappingNode)
	if !ok {
		if mv, one := unwrap(into.Value).(*ast.MappingValueNode); one {
			m = ast.Mapping(mv.GetToken(), false, mv)
			into.Value = m
		} else {
			return kept // not an object: the walk says so
		}
	}
	for _, h := range headers {
		if name := keyString(h.h.Key); mappingHas(m, name) {
			f.note(p, h.kn, "%s: ignored: the header %s is given already", h.at, name)
			continue
		}
		m.Values = append(m.Values, h.h)
	}
	return kept
}

// allowedLessDenied takes out of kept's allow_tools (enabled_tools, as patterns) each name its
// deny_tools lists: Codex serves enabled_tools less disabled_tools, and agentpool refuses a name
// both allowed and denied (deny wins, so the tools served are the same). When no name is left,
// no tool is served, as in Codex: deny_tools gets "*" in place of an allow_tools that, empty,
// would allow every tool.
func allowedLessDenied(kept []*ast.MappingValueNode) []*ast.MappingValueNode {
	var allow *ast.MappingValueNode
	var deny *ast.SequenceNode
	denied := map[string]bool{}
	for _, mv := range kept {
		switch keyString(mv.Key) {
		case "allow_tools":
			allow = mv
		case "deny_tools":
			deny, _ = unwrap(mv.Value).(*ast.SequenceNode)
			if deny == nil {
				return kept // not a list: the walk says so
			}
			for _, e := range deny.Values {
				if s, ok := unwrap(e).(*ast.StringNode); ok {
					denied[s.Value] = true
				}
			}
		}
	}
	seq, ok := unwrap(allow.Value).(*ast.SequenceNode)
	if !ok {
		return kept
	}
	less := ast.Sequence(seq.Start, seq.IsFlowStyle)
	for _, e := range seq.Values {
		if s, ok := unwrap(e).(*ast.StringNode); !ok || !denied[s.Value] {
			less.Values = append(less.Values, e)
		}
	}
	if len(less.Values) > 0 {
		allow.Value = less
		return kept
	}
	all := ast.String(token.New("*", "*", seq.Start.Position))
	if deny != nil {
		deny.Values = append(deny.Values, all)
		return slices.DeleteFunc(kept, func(mv *ast.MappingValueNode) bool { return mv == allow })
	}
	less.Values = []ast.Node{all}
	allow.Key, allow.Value = ast.String(token.New("deny_tools", "deny_tools", allow.Key.GetToken().Position)), less
	return kept
}

// mappingHas reports whether m holds key name, its case ignored (header names).
func mappingHas(m *ast.MappingNode, name string) bool {
	for _, mv := range m.Values {
		if strings.EqualFold(keyString(mv.Key), name) {
			return true
		}
	}
	return false
}

var serverType = reflect.TypeFor[decl.Server]()

// unknown drops from n, which decodes into a value of type t at key, every mapping key that
// names no field of the struct it lands in, at any depth, each a warning naming the key
// probably meant.
func (f *importedFile) unknown(p *problems, n ast.Node, t reflect.Type, key string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t.Kind() == reflect.Struct && t != durationType:
		m, ok := unwrap(n).(*ast.MappingNode)
		if !ok {
			if mv, one := unwrap(n).(*ast.MappingValueNode); one {
				if field, known := fieldByYAMLName(t, keyString(mv.Key)); known {
					f.unknown(p, mv.Value, field.Type, joinKey(key, keyString(mv.Key)))
				}
			}
			return // a lone unknown key of a block mapping is left to the decoder's error
		}
		kept := m.Values[:0]
		for _, mv := range m.Values {
			name := keyString(mv.Key)
			field, known := fieldByYAMLName(t, name)
			if !known {
				if _, merge := mv.Key.(*ast.MergeKeyNode); !merge {
					f.note(p, mv.Key, "%s: unknown key, ignored%s", joinKey(key, name), knownKeyHint(name, t))
					continue
				}
			} else {
				f.unknown(p, mv.Value, field.Type, joinKey(key, name))
			}
			kept = append(kept, mv)
		}
		m.Values = kept
	case t.Kind() == reflect.Map && t.Key().Kind() == reflect.String:
		for _, mv := range mappingValues(n) {
			f.unknown(p, mv.Value, t.Elem(), joinKey(key, keyString(mv.Key)))
		}
	case t.Kind() == reflect.Slice:
		if seq, ok := unwrap(n).(*ast.SequenceNode); ok {
			for i, e := range seq.Values {
				f.unknown(p, e, t.Elem(), fmt.Sprintf("%s[%d]", key, i))
			}
		}
	}
}

// note records a warning at node n.
func (f *importedFile) note(p *problems, n ast.Node, format string, args ...any) {
	f.notes = append(f.notes, p.place(n)+": "+fmt.Sprintf(format, args...))
}

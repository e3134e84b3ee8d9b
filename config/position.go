package config

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"
)

// problems collects errors, each as "name:line:col: what".
type problems struct {
	name string
	root ast.Node // the document's body
	errs []error
	// unreadKeys are the keys whose value the walk could not read (an unset ${VAR}, a
	// duration without a unit): their validation problems would be noise (see addKeyed).
	unreadKeys []string
}

// at records a problem at node n.
func (p *problems) at(n ast.Node, format string, args ...any) {
	p.errs = append(p.errs, p.positioned(n, fmt.Sprintf(format, args...)))
}

// unread records a problem of the value at key, node n, that makes the value unreadable:
// "key: " and the message, at n.
func (p *problems) unread(n ast.Node, key, format string, args ...any) {
	p.unreadKeys = append(p.unreadKeys, key)
	p.at(n, "%s: "+format, append([]any{key}, args...)...)
}

// addKeyed records every problem in err (an errors.Join tree) at the node of its key: the key
// its Key() string method returns, found in the file, or the nearest enclosing key that is
// there (a missing command is reported at its server). A problem of a key whose value the walk
// could not read, or of a key under it, is left out: its value is the unexpanded text or the
// default, and the walk's own problem says what is wrong there.
func (p *problems) addKeyed(err error) {
	if err == nil {
		return
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			p.addKeyed(e)
		}
		return
	}
	var keyed interface{ Key() string }
	node := p.root
	if errors.As(err, &keyed) {
		if p.unreadUnder(keyed.Key()) || p.aboutUnread(keyed.Key(), err.Error()) {
			return
		}
		node = lookupKey(p.root, keyed.Key())
	}
	p.errs = append(p.errs, &placed{where: p.positioned(node, "").Error(), err: err})
}

// placed is a problem placed in the file: "name:line:col: " and the problem, which it wraps
// (an import refused as not a regular file is still regfile.ErrNotRegular).
type placed struct {
	where string
	err   error
}

func (e *placed) Error() string { return e.where + e.err.Error() }
func (e *placed) Unwrap() error { return e.err }

// aboutUnread reports whether msg, a problem of key, is about a key just under it whose value
// the walk could not read (so left out of the decoded config): "mcp_servers.a: needs a
// command" when mcp_servers.a.command held a list. The walk's own problem says what is wrong.
// The child's name is looked for as a word of what the message says, after its key (which
// holds user names: a server "dev-env" is no mention of its env).
func (p *problems) aboutUnread(key, msg string) bool {
	msg = strings.TrimPrefix(msg, key+": ")
	for _, u := range p.unreadKeys {
		rest, ok := strings.CutPrefix(u, key+".")
		if !ok {
			continue
		}
		child, _, _ := strings.Cut(rest, ".")
		if child, _, _ = strings.Cut(child, "["); child != "" && hasWord(msg, child) {
			return true
		}
	}
	return false
}

// hasWord reports whether w occurs in s with no letter, digit or '_' right before or after it.
func hasWord(s, w string) bool {
	isWord := func(c byte) bool {
		return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
	}
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(w)
		if (j == 0 || !isWord(s[j-1])) && (end == len(s) || !isWord(s[end])) {
			return true
		}
		i = j + 1
	}
}

// unreadUnder reports whether key is, or is under, a key whose value the walk could not read.
func (p *problems) unreadUnder(key string) bool {
	for _, u := range p.unreadKeys {
		if rest, ok := strings.CutPrefix(key, u); ok && (rest == "" || rest[0] == '.' || rest[0] == '[') {
			return true
		}
	}
	return false
}

func (p *problems) positioned(n ast.Node, msg string) error {
	if m, ok := n.(*ast.MappingNode); ok && !m.IsFlowStyle && len(m.Values) > 0 {
		n = m.Values[0].Key // a block mapping's own token is its first colon
	}
	if n != nil {
		if tk := n.GetToken(); tk != nil && tk.Position != nil {
			return fmt.Errorf("%s:%d:%d: %s", p.name, tk.Position.Line, tk.Position.Column, msg)
		}
	}
	return fmt.Errorf("%s: %s", p.name, msg)
}

func (p *problems) err() error { return errors.Join(p.errs...) }

// lookupKey returns the value node at key ("mcp_servers.x.tools[0].name") under n, or the
// deepest node on the way when the rest of the key is not in the file. A mapping key may hold
// dots itself (a server named "a.b"): the longest key that fits is taken.
func lookupKey(n ast.Node, key string) ast.Node {
	found, rest := n, key
	for rest != "" {
		switch v := unwrap(n).(type) {
		case *ast.MappingNode, *ast.MappingValueNode:
			var match *ast.MappingValueNode
			var matchKey string
			for _, mv := range mappingValues(v) {
				k := keyString(mv.Key)
				fits := rest == k || strings.HasPrefix(rest, k+".") || strings.HasPrefix(rest, k+"[")
				if fits && (match == nil || len(k) > len(matchKey)) {
					match, matchKey = mv, k
				}
			}
			if match == nil || match.Value == nil {
				return found
			}
			n, rest = match.Value, strings.TrimPrefix(rest[len(matchKey):], ".")
		case *ast.SequenceNode:
			end := strings.IndexByte(rest, ']')
			if !strings.HasPrefix(rest, "[") || end < 0 {
				return found
			}
			i, err := strconv.Atoi(rest[1:end])
			if err != nil || i < 0 || i >= len(v.Values) || v.Values[i] == nil {
				return found
			}
			n, rest = v.Values[i], strings.TrimPrefix(rest[end+1:], ".")
		default:
			return found
		}
		found = n
	}
	return found
}

// decodeError turns an error of the decoder into "name:line:col: key: message": the key is
// the one at the error's position under root (an unknown key, or the value of the wrong
// kind), else the one the lines of data place it under, and the message is said in the
// file's terms ("want a list, got a string"), not in Go's ("cannot unmarshal … into Go struct
// field Config.MCPServers of type …"). An unknown key gets the known key it was probably meant
// to be, from parents: the struct type holding each mapping key, by position (see walker).
func decodeError(name string, data []byte, root ast.Node, parents map[[2]int]reflect.Type, err error) error {
	var ye yaml.Error
	if !errors.As(err, &ye) {
		return yamlError(name, err)
	}
	tk := ye.GetToken()
	if tk == nil || tk.Position == nil {
		return yamlError(name, err)
	}
	key, ok := keyAt(root, "", tk.Position)
	if !ok {
		key = lineKey(data, tk.Position.Line)
	}
	msg := userWords(ye.GetMessage())
	if strings.HasPrefix(msg, "unknown field ") {
		msg = "unknown key" + knownKeyHint(keyName(key), parents[[2]int{tk.Position.Line, tk.Position.Column}])
	}
	return fmt.Errorf("%s:%d:%d: %s", name, tk.Position.Line, tk.Position.Column, withKey(key, msg))
}

// withKey prefixes msg with key, or with "top level" for the file's own value.
func withKey(key, msg string) string {
	if key == "" {
		return "top level: " + msg
	}
	return key + ": " + msg
}

// keyName is the last element of a dotted key: "comand" of "mcp_servers.a.comand".
func keyName(key string) string {
	return key[strings.LastIndexByte(key, '.')+1:]
}

// knownKeyHint suggests, for an unknown key name in a mapping that decodes into struct type
// t, the key it was probably meant to be: one spelt the same but for case, '-' and '_'
// (mcpServers, mcp-servers: mcp_servers), a known alias (servers), or one a typo or two away
// (comand); else it lists the keys t has.
func knownKeyHint(name string, t reflect.Type) string {
	if t == nil || t.Kind() != reflect.Struct {
		return ""
	}
	var known []string
	for i := range t.NumField() {
		if f := t.Field(i); f.IsExported() && yamlName(f) != "-" {
			known = append(known, yamlName(f))
		}
	}
	squash := func(s string) string {
		return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(s))
	}
	if alias, ok := keyAliases[squash(name)]; ok && slices.Contains(known, alias) {
		return fmt.Sprintf(" (agentpool's key is %s)", alias)
	}
	best, bestDist := "", len(name)+1 // a typo or two, fewer in a short name
	for _, k := range known {
		if squash(k) == squash(name) {
			return fmt.Sprintf(" (agentpool's key is %s)", k)
		}
		if d := editDistance(strings.ToLower(name), k); d <= max(1, len(name)/3) && d < bestDist {
			best, bestDist = k, d
		}
	}
	if best != "" {
		return fmt.Sprintf(" (did you mean %s?)", best)
	}
	return " (known keys: " + strings.Join(known, ", ") + ")"
}

// keyAliases are other tools' names for agentpool's keys, squashed (lower case, no '_' or '-'):
// Claude's and Cursor's JSON configs say mcpServers, which squashes to mcp_servers already.
var keyAliases = map[string]string{
	"servers":    "mcp_servers",
	"mcp":        "mcp_servers",
	"mcpservers": "mcp_servers",
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

var (
	// goUnmarshal matches go-yaml's "cannot unmarshal X into Go struct field Config.MCPServers
	// of type T", "… into Go value of type T" and "… ( overflow )".
	goUnmarshal = regexp.MustCompile(`^cannot unmarshal (.+) into Go (?:struct field \S+ of type|value of type) (.+?)( \( overflow \))?$`)
	// wrongKind matches go-yaml's "string was used where sequence is expected".
	wrongKind = regexp.MustCompile(`^(.+) was used where (.+) is expected$`)
	// defined matches go-yaml's `mapping key "a" already defined at [2:3]`.
	defined = regexp.MustCompile(`^mapping key "(.*)" already defined at \[(\d+):\d+\]$`)
	// noAlias matches go-yaml's `could not find alias "zz"`.
	noAlias = regexp.MustCompile(`^could not find alias "(.*)"$`)
)

// userWords says a go-yaml message in the terms of a YAML file: lists, mappings and numbers
// rather than Go types and tokens. A message it does not know is kept as it is.
func userWords(msg string) string {
	if m := goUnmarshal.FindStringSubmatch(msg); m != nil {
		if m[3] != "" {
			return fmt.Sprintf("%s is out of range for %s", m[1], kindWords(m[2]))
		}
		return fmt.Sprintf("want %s, got %s", kindWords(m[2]), kindWords(m[1]))
	}
	if m := wrongKind.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("want %s, got %s", kindWords(m[2]), kindWords(m[1]))
	}
	if m := defined.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("key %q is defined twice (first at line %s)", m[1], m[2])
	}
	if m := noAlias.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("alias *%s has no anchor &%s before it", m[1], m[1])
	}
	switch {
	case strings.Contains(msg, "'\t' that cannot start any token"):
		return "a tab: YAML indents with spaces only"
	case strings.HasPrefix(msg, "sequence end token ']' not found"):
		return "a [ is never closed by a ]"
	case strings.HasPrefix(msg, "mapping end token '}' not found"):
		return "a { is never closed by a }"
	case strings.HasPrefix(msg, "',' or '}' must be specified"), strings.HasPrefix(msg, "',' or ']' must be specified"):
		return "a comma is missing before this (or a '" + msg[8:9] + "' that closes)"
	case strings.HasPrefix(msg, "could not find end character of double-quoted text"):
		return `a " is never closed`
	case strings.HasPrefix(msg, "could not find end character of single-quoted text"):
		return "a ' is never closed"
	}
	return msg
}

// kindWords names a YAML node kind (go-yaml's names) or a Go type as a config file's writer
// knows it.
func kindWords(kind string) string {
	switch {
	case kind == "sequence" || strings.HasPrefix(kind, "[]"):
		return "a list"
	case kind == "mapping" || strings.HasPrefix(kind, "map[") || kind == "struct":
		return "a mapping (key: value)"
	case kind == "string" || kind == "scalar":
		return "a string"
	case kind == "boolean" || kind == "bool":
		return "true or false"
	case strings.HasPrefix(kind, "int") || strings.HasPrefix(kind, "uint"):
		return "a whole number"
	case strings.HasPrefix(kind, "float"):
		return "a number"
	case kind == "null":
		return "nothing"
	case strings.HasPrefix(kind, "time.Duration"):
		return "a duration"
	}
	if i := strings.LastIndexByte(kind, '.'); i >= 0 { // a struct type: decl.Retry
		return "a mapping (key: value)"
	}
	return kind
}

// blockKey matches a line's block mapping key ("  name: …", "- name: …" after the dash).
var blockKey = regexp.MustCompile(`^("[^"]*"|'[^']*'|[^\s#'"\[\]{},:?&*!|>%@` + "`" + `-][^#:]*?|-[^\s#:][^#:]*?)\s*:(?:\s|$)`)

// lineKey returns the key ("mcp_servers.a") that line (1-based) of data is under, by the
// indentation of the block mapping keys before it and its own key: where a problem found
// before the syntax tree is whole (a syntax error) is said to be. Flow mappings ({a: b}) are
// not looked into: a problem inside one is placed at the key that holds it.
func lineKey(data []byte, line int) string {
	type level struct {
		indent int
		key    string
	}
	var stack []level
	for i, text := range strings.Split(string(data), "\n") {
		if i >= line {
			break
		}
		text = strings.TrimRight(text, "\r")
		rest := strings.TrimLeft(text, " \t")
		if rest == "" || rest[0] == '#' || rest == "---" || rest == "..." {
			continue
		}
		indent := len(text) - len(rest)
		for len(stack) > 0 && stack[len(stack)-1].indent >= indent {
			stack = stack[:len(stack)-1]
		}
		for strings.HasPrefix(rest, "- ") { // a list entry holding a mapping: its keys are deeper
			trimmed := strings.TrimLeft(rest[2:], " ")
			indent += len(rest) - len(trimmed)
			rest = trimmed
		}
		if m := blockKey.FindStringSubmatch(rest); m != nil {
			stack = append(stack, level{indent, strings.Trim(strings.TrimSpace(m[1]), `"'`)})
		}
	}
	keys := make([]string, len(stack))
	for i, l := range stack {
		keys[i] = l.key
	}
	return strings.Join(keys, ".")
}

// syntaxError turns an error of the YAML parser into "name:line:col: key: message", the key
// being the one the error's line is under (see lineKey).
func syntaxError(name string, data []byte, err error) error {
	var ye yaml.Error
	if !errors.As(err, &ye) {
		return yamlError(name, err)
	}
	tk := ye.GetToken()
	if tk == nil || tk.Position == nil {
		return fmt.Errorf("%s: %s", name, userWords(ye.GetMessage()))
	}
	key, msg := lineKey(data, tk.Position.Line), userWords(ye.GetMessage())
	if m := defined.FindStringSubmatch(ye.GetMessage()); m != nil && keyName(key) == m[1] {
		msg = fmt.Sprintf("defined twice (first at line %s)", m[2])
	}
	msg = withKey(key, msg)
	return fmt.Errorf("%s:%d:%d: %s", name, tk.Position.Line, tk.Position.Column, msg)
}

// keyAt returns the key ("mcp_servers.x.env.A", "skills.dirs[1]") of the mapping key or
// value that starts at pos under n, key being n's own.
func keyAt(n ast.Node, key string, pos *token.Position) (string, bool) {
	if n == nil {
		return "", false
	}
	switch v := unwrap(n).(type) {
	case *ast.MappingNode, *ast.MappingValueNode:
		for _, mv := range mappingValues(v) {
			at := joinKey(key, keyString(mv.Key))
			if samePos(mv.Key, pos) {
				return at, true
			}
			if k, ok := keyAt(mv.Value, at, pos); ok {
				return k, true
			}
		}
	case *ast.SequenceNode:
		for i, e := range v.Values {
			if k, ok := keyAt(e, fmt.Sprintf("%s[%d]", key, i), pos); ok {
				return k, true
			}
		}
	}
	return key, samePos(n, pos)
}

func samePos(n ast.Node, pos *token.Position) bool {
	if n == nil {
		return false
	}
	tk := n.GetToken()
	return tk != nil && tk.Position != nil && tk.Position.Line == pos.Line && tk.Position.Column == pos.Column
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

package config

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"
)

// This file holds what Parse does to the YAML before decoding it, once for every section of
// every kind: it walks the syntax tree in step with the Go type the tree decodes into, so
// that what happens to a value depends on the field it lands in, never on a list of key names.
//
//   - A time.Duration field must hold a duration with a unit ("500ms", "5m"): a bare number
//     or anything else is reported at its line and column (the decoder's own error for it
//     carries no position, and would read 30 as 30ns).
//   - An integer field must not hold a number with a fraction (2.5, 3.0, 1e3): the decoder
//     would truncate it silently.
//   - A string field tagged config:"expand" (or a list or map of strings so tagged) has
//     ${VAR} and ${VAR:-default} replaced in the scalar itself, before decoding, so a
//     variable's value can never inject YAML structure (see expandEnv).
//   - A string field tagged config:"path" that is "~" or starts with "~/" is taken from the
//     user's home directory, as a shell would (a config file is not read by one); otherwise it
//     is made absolute against the config file's folder when relative (after expansion).
//
// User data is never touched: map keys, and values decoded into an interface (a static tool's
// input_schema) are not walked.

// fieldTags are the config:"…" options of the field a value is decoded into; a list's or a
// map's elements inherit them.
type fieldTags struct{ expand, path bool }

func tagsOf(f reflect.StructField) fieldTags {
	var t fieldTags
	for _, opt := range strings.Split(f.Tag.Get("config"), ",") {
		switch opt {
		case "expand":
			t.expand = true
		case "path":
			t.path = true
		}
	}
	return t
}

var durationType = reflect.TypeFor[time.Duration]()

// yamlUnmarshalerType is go-yaml's InterfaceUnmarshaler, which a type with a form of its own
// implements.
var yamlUnmarshalerType = reflect.TypeFor[interface {
	UnmarshalYAML(func(any) error) error
}]()

// ownForm decodes n, not a mapping, into a value of t, a type with a form of its own besides
// the mapping (decl.Sandbox's `off`, decl.Network's list), and reports what it refuses at n's
// position, replacing n with null (see shape).
func (w *walker) ownForm(n ast.Node, t reflect.Type, key string, set func(ast.Node)) {
	if n = w.resolve(n); n == nil {
		return
	}
	v := reflect.New(t).Interface().(interface{ UnmarshalYAML(func(any) error) error })
	if err := v.UnmarshalYAML(func(dst any) error { return nodeToValue(n, dst) }); err != nil {
		w.p.unread(n, key, "%v", err)
		set(ast.Null(token.New("null", "null", n.GetToken().Position)))
	}
}

// isMapping reports whether n is a mapping.
func isMapping(n ast.Node) bool {
	switch unwrap(n).(type) {
	case *ast.MappingNode, *ast.MappingValueNode:
		return true
	}
	return false
}

// walker applies the rules above, collecting problems.
type walker struct {
	p      *problems
	lookup func(string) (string, bool) // the environment
	// keepEnv leaves ${VAR} references as written (Config.Declared); lookup is unused then.
	keepEnv bool
	dir     string // the config file's folder; "" resolves no path

	anchors map[string]ast.Node // the values of the anchors walked so far, by name
	// parents is the struct type of the mapping holding each key that names no field, by
	// the key's line and column: an unknown key's hint says what the mapping knows.
	parents map[[2]int]reflect.Type
}

// resolve returns the node an alias stands for, if its anchor was walked (anchors come
// before their aliases), else nil; any other node is returned as it is.
func (w *walker) resolve(n ast.Node) ast.Node {
	a, ok := n.(*ast.AliasNode)
	if !ok {
		return n
	}
	if a.Value == nil || a.Value.GetToken() == nil {
		return nil
	}
	return w.anchors[a.Value.GetToken().Value]
}

// walk visits n, which decodes into a value of type t at key ("mcp_servers.x.args[0]");
// set replaces n in its parent.
func (w *walker) walk(n ast.Node, t reflect.Type, key string, tags fieldTags, set func(ast.Node)) {
	switch v := n.(type) {
	case nil:
		return
	case *ast.AnchorNode:
		w.walk(v.Value, t, key, tags, func(m ast.Node) { v.Value = m })
		if v.Name != nil && v.Name.GetToken() != nil {
			if w.anchors == nil {
				w.anchors = map[string]ast.Node{}
			}
			w.anchors[v.Name.GetToken().Value] = v.Value
		}
		return
	case *ast.TagNode:
		w.walk(v.Value, t, key, tags, func(m ast.Node) { v.Value = m })
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(yamlUnmarshalerType) && !isMapping(w.resolve(n)) {
		w.ownForm(n, t, key, set)
		return
	}
	if !w.shape(n, t, key, set) {
		return
	}
	switch {
	case t == durationType:
		w.duration(n, key, set)
	case isInteger(t.Kind()):
		w.integer(n, key, set)
	case t.Kind() == reflect.Struct:
		for _, mv := range mappingValues(n) {
			if w.merge(mv, t, key, tags) {
				continue
			}
			name := keyString(mv.Key)
			if f, ok := fieldByYAMLName(t, name); ok {
				w.walk(mv.Value, f.Type, joinKey(key, name), tagsOf(f), func(m ast.Node) { mv.Value = m })
			} else if tk := mv.Key.GetToken(); tk != nil && tk.Position != nil {
				if w.parents == nil {
					w.parents = map[[2]int]reflect.Type{}
				}
				w.parents[[2]int{tk.Position.Line, tk.Position.Column}] = t
			}
		}
	case t.Kind() == reflect.Map && t.Key().Kind() == reflect.String:
		for _, mv := range mappingValues(n) {
			if w.merge(mv, t, key, tags) {
				continue
			}
			w.walk(mv.Value, t.Elem(), joinKey(key, keyString(mv.Key)), tags, func(m ast.Node) { mv.Value = m })
		}
	case t.Kind() == reflect.Slice || t.Kind() == reflect.Array:
		if seq, ok := n.(*ast.SequenceNode); ok {
			for i, e := range seq.Values {
				w.walk(e, t.Elem(), fmt.Sprintf("%s[%d]", key, i), tags, func(m ast.Node) { seq.Values[i] = m })
			}
		}
	case t.Kind() == reflect.String:
		w.scalar(n, key, tags)
	}
}

// merge walks the value of a YAML merge key (<<: *base, or a list of such) as what it is
// merged into, a mapping of type t at key, and reports whether mv was one: its value is not
// an entry of the mapping (a mapping where a string goes).
func (w *walker) merge(mv *ast.MappingValueNode, t reflect.Type, key string, tags fieldTags) bool {
	if _, ok := mv.Key.(*ast.MergeKeyNode); !ok {
		return false
	}
	if seq, ok := unwrap(mv.Value).(*ast.SequenceNode); ok {
		for i, e := range seq.Values {
			w.walk(e, t, key, tags, func(m ast.Node) { seq.Values[i] = m })
		}
		return true
	}
	w.walk(mv.Value, t, key, tags, func(m ast.Node) { mv.Value = m })
	return true
}

// shape reports a value of a kind that cannot decode into t (a string where a list goes, a
// list where a mapping goes, a mapping where a string goes) and replaces it with null, so
// that the decoder, which stops at the first such value, does not: every one is reported. It
// returns false when it did.
func (w *walker) shape(n ast.Node, t reflect.Type, key string, set func(ast.Node)) bool {
	var want string
	switch {
	case t == durationType:
		return true
	case t.Kind() == reflect.Struct, t.Kind() == reflect.Map:
		want = "a mapping (key: value)"
	case t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8:
		want = "a list"
	case t.Kind() == reflect.String:
		want = "a string"
	default:
		return true
	}
	var got string
	switch unwrap(w.resolve(n)).(type) {
	case nil, *ast.NullNode:
		return true // an alias not walked, or no value: the decoder says what it must
	case *ast.MappingNode, *ast.MappingValueNode:
		got = "a mapping (key: value)"
	case *ast.SequenceNode:
		got = "a list"
	case *ast.IntegerNode:
		got = "a whole number"
	case *ast.FloatNode, *ast.InfinityNode, *ast.NanNode:
		got = "a number"
	case *ast.BoolNode:
		got = "true or false"
	default:
		got = "a string"
	}
	if got == want || want == "a string" && got != "a list" && got != "a mapping (key: value)" {
		return true // any scalar decodes into a string
	}
	w.p.unread(n, key, "want %s, got %s", want, got)
	set(ast.Null(token.New("null", "null", n.GetToken().Position)))
	return false
}

// duration reports a value that is not a duration with a unit, and replaces it with null so
// that the decoder does not report it again without a position.
func (w *walker) duration(n ast.Node, key string, set func(ast.Node)) {
	switch v := w.resolve(n).(type) {
	case nil:
		return // an alias of an anchor not walked: the decoder reports it if it matters
	case *ast.NullNode:
		return
	case *ast.IntegerNode, *ast.FloatNode:
		s := v.GetToken().Value
		w.p.unread(n, key, "%s has no unit (write e.g. %ss or %sms)", s, s, s)
	case *ast.StringNode:
		if _, err := time.ParseDuration(v.Value); err == nil {
			return
		}
		w.p.unread(n, key, "%q is not a duration (e.g. 500ms, 5s, 5m)", v.Value)
	default:
		w.p.unread(n, key, "not a duration (e.g. 500ms, 5s, 5m)")
	}
	set(ast.Null(token.New("null", "null", n.GetToken().Position)))
}

// isInteger reports whether k is an integer kind.
func isInteger(k reflect.Kind) bool {
	return reflect.Int <= k && k <= reflect.Int64 || reflect.Uint <= k && k <= reflect.Uintptr
}

// integer reports a number with a fraction or an exponent where an integer belongs, and
// replaces it with null: the decoder would truncate 2.5 to 2 without a word. That includes a
// string that reads as such a number (1e-3, which the parser leaves a string for want of a
// dot, or a quoted "2.5"): the decoder converts a string to a number too. Anything else that
// is not an integer the decoder reports itself.
func (w *walker) integer(n ast.Node, key string, set func(ast.Node)) {
	var text string
	switch v := w.resolve(n).(type) {
	case *ast.FloatNode:
		text = v.GetToken().Value
	case *ast.StringNode:
		s := strings.ReplaceAll(v.Value, "_", "")
		if _, err := strconv.ParseInt(s, 0, 64); err == nil {
			return
		}
		if _, err := strconv.ParseUint(s, 0, 64); err == nil {
			return
		}
		if _, err := strconv.ParseFloat(s, 64); err != nil {
			// Not a number at all: said here, with every other such value, rather than by
			// the decoder, which stops at the first.
			w.p.unread(n, key, "want a whole number, got a string")
			set(ast.Null(token.New("null", "null", n.GetToken().Position)))
			return
		}
		if !strings.ContainsAny(s, ".eEpPiInN") {
			return // a whole number out of range: the decoder says so
		}
		text = v.Value
	case *ast.BoolNode:
		w.p.unread(n, key, "want a whole number, got true or false")
		set(ast.Null(token.New("null", "null", n.GetToken().Position)))
		return
	default:
		return
	}
	w.p.unread(n, key, "%s is not a whole number", text)
	set(ast.Null(token.New("null", "null", n.GetToken().Position)))
}

// scalar expands and resolves a string scalar as its tags say, in place: the decoder reads
// the new value (a block scalar's too: it holds its text in a string node).
func (w *walker) scalar(n ast.Node, key string, tags fieldTags) {
	if !tags.expand && !tags.path {
		return
	}
	var str *ast.StringNode
	switch v := n.(type) {
	case *ast.StringNode:
		str = v
	case *ast.LiteralNode:
		str = v.Value
	}
	if str == nil {
		return // not a string: the decoder reports it if it matters
	}
	out := str.Value
	if tags.expand && !w.keepEnv {
		var err error
		if out, err = expandEnv(out, w.lookup); err != nil {
			w.p.unread(n, key, "%v", err)
			return
		}
	}
	if tags.path && (out == "~" || strings.HasPrefix(out, "~/")) {
		home, err := os.UserHomeDir()
		if err != nil {
			w.p.unread(n, key, "cannot expand %q: %v", out, err)
			return
		}
		out = filepath.Join(home, out[1:])
	}
	if tags.path && w.dir != "" && out != "" && !filepath.IsAbs(out) {
		out = filepath.Join(w.dir, out)
	}
	str.Value = out
}

// fieldByYAMLName finds the field of struct type t that the YAML key name decodes into.
func fieldByYAMLName(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		if f := t.Field(i); f.IsExported() && yamlName(f) == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// yamlName is the key of field f: its yaml tag's name, else its name lowercased (go-yaml's
// rule).
func yamlName(f reflect.StructField) string {
	if name, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); name != "" {
		return name
	}
	return strings.ToLower(f.Name)
}

func joinKey(key, name string) string {
	if key == "" {
		return name
	}
	return key + "." + name
}

// keyString is a mapping key as written, without quotes.
func keyString(k ast.MapKeyNode) string {
	if s, ok := unwrap(k).(*ast.StringNode); ok {
		return s.Value
	}
	if tk := k.GetToken(); tk != nil {
		return tk.Value
	}
	return k.String()
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

package frontmatter

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// Frontmatter is the parsed YAML of a frontmatter block.
type Frontmatter struct {
	// Keys lists every top-level key in file order, unknown ones included.
	Keys []string
	// Values holds each key's decoded YAML value: string, bool, int, uint64, float64, []any,
	// map[string]any or nil.
	Values map[string]any
	// Lines holds each key's 1-based file line, the opening fence being line 1.
	Lines map[string]int
	// RawScalars holds, for each top-level key whose value is a mapping, the source text of the
	// mapping's non-string scalar values by their key ("version: 1.0" gives "1.0" where Values
	// holds the number 1). It is nil when no such value exists.
	RawScalars map[string]map[string]string
}

// Severity says how bad a Diagnostic is.
type Severity string

// The two severities: an error means the frontmatter could not be read (Parse returned nil), a
// warning that it was read after a repair.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Diagnostic reports one problem found in a frontmatter: the file, its 1-based line (the opening
// fence is line 1), how bad it is and what is wrong.
type Diagnostic struct {
	Path     string
	Line     int
	Severity Severity
	Message  string
}

// String formats d as "path:line: severity: message", the form compilers use.
func (d Diagnostic) String() string {
	return fmt.Sprintf("%s:%d: %s: %s", d.Path, d.Line, d.Severity, d.Message)
}

// maxYAMLLines is the longest frontmatter, in lines, handed to the YAML parser. go-yaml takes
// time quadratic in the number of keys of a mapping (goccy/go-yaml#889: 8,000 keys take seconds,
// 60,000 more than a minute), and frontmatter comes from cloned repositories; real ones are a few
// dozen lines. Longer ones the fast path reads are still accepted.
const maxYAMLLines = 1000

// Parse parses y, the text between the fences of path's frontmatter (Block.YAML), leniently: CRLF
// and lone CR line ends are accepted, invalid UTF-8 is replaced (a warning), and an unquoted value
// holding ": " is quoted and parsed again (a warning per line). It returns nil and an error
// diagnostic when the YAML cannot be read: not YAML, not a mapping, a duplicate key, aliases
// expanding far beyond the text, or more than 1000 lines that are not all simple `key: value`
// lines. An empty block is an empty Frontmatter. path only labels the diagnostics, whose lines
// are file lines. Parse never panics, whatever y holds.
func Parse(path string, y []byte) (*Frontmatter, []Diagnostic) {
	var ds []Diagnostic
	report := func(line int, sev Severity, msg string) {
		ds = append(ds, Diagnostic{Path: path, Line: line, Severity: sev, Message: msg})
	}
	// YAML line n is file line n+1: the opening fence is line 1.
	y = NormalizeNewlines(y)
	if !utf8.Valid(y) {
		report(firstInvalidUTF8Line(y)+1, SeverityWarning, "frontmatter is not valid UTF-8; invalid bytes replaced with U+FFFD")
		y = bytes.ToValidUTF8(y, []byte("\uFFFD"))
	}
	if fm, ok := fastParse(y); ok {
		return fm, ds
	}
	if n := bytes.Count(y, []byte("\n")); n > maxYAMLLines || n == maxYAMLLines && y[len(y)-1] != '\n' {
		report(maxYAMLLines+2, SeverityError, fmt.Sprintf("frontmatter has more than %d lines of YAML; refused (the YAML parser would take too long)", maxYAMLLines))
		return nil, ds
	}
	fm, err := parseYAML(y)
	if err == nil {
		return fm, ds
	}
	line, msg := yamlErrorPosition(err)
	if fixed, lines := quoteColonValues(y); len(lines) > 0 {
		if fm2, err2 := parseYAML(fixed); err2 == nil {
			for _, l := range lines {
				report(l+1, SeverityWarning, "unquoted value contains \": \" (invalid YAML); read as a quoted string")
			}
			return fm2, ds
		}
	}
	var nm *notMapping
	var ab *aliasBomb
	if errors.As(err, &nm) || errors.As(err, &ab) {
		report(2, SeverityError, err.Error())
		return nil, ds
	}
	report(line+1, SeverityError, "frontmatter is not valid YAML: "+msg)
	return nil, ds
}

// firstInvalidUTF8Line returns the 1-based line of y holding the first invalid UTF-8 byte.
func firstInvalidUTF8Line(y []byte) int {
	line := 1
	for len(y) > 0 {
		r, size := utf8.DecodeRune(y)
		if r == utf8.RuneError && size <= 1 {
			return line
		}
		if r == '\n' {
			line++
		}
		y = y[size:]
	}
	return line
}

// notMapping reports frontmatter that is YAML but not a mapping.
type notMapping struct{ kind string }

func (e *notMapping) Error() string {
	return "frontmatter is a YAML " + e.kind + ", not a mapping of keys to values"
}

// aliasBomb reports frontmatter whose YAML aliases expand it far beyond its written size.
type aliasBomb struct{ limit int }

func (e *aliasBomb) Error() string {
	return fmt.Sprintf("frontmatter YAML aliases expand to more than %d KiB; refused", e.limit>>10)
}

// ExpansionLimit is the largest decoded size (as ExpandedSize measures it) accepted for n
// bytes of YAML: 4 times n plus 64 KiB. Written out, YAML decodes to about as many bytes as
// it holds, so only aliases get past it (see the package doc). Package config applies the
// same bound to configuration files.
func ExpansionLimit(n int) int { return 4*n + 64<<10 }

// ExpandedSize measures v, a value decoded from YAML, as it would be written out with its
// aliases expanded: one per value plus the bytes of each string and key. It stops counting
// once the size passes limit, so its cost is bounded by limit, whatever v expands to.
func ExpandedSize(v any, limit int) int {
	n := 0
	var walk func(v any)
	walk = func(v any) {
		n++
		if n > limit {
			return
		}
		switch t := v.(type) {
		case string:
			n += len(t)
		case []any:
			for _, x := range t {
				if walk(x); n > limit {
					return
				}
			}
		case map[string]any:
			for k, x := range t {
				n += len(k)
				if walk(x); n > limit {
					return
				}
			}
		case map[any]any:
			for k, x := range t {
				walk(k)
				if walk(x); n > limit {
					return
				}
			}
		}
	}
	walk(v)
	return n
}

// yamlErrorPosition extracts the YAML line (1-based, 0 if unknown) and a one-line message.
func yamlErrorPosition(err error) (int, string) {
	var ye yaml.Error
	if errors.As(err, &ye) {
		line := 0
		if tk := ye.GetToken(); tk != nil && tk.Position != nil {
			line = tk.Position.Line
		}
		return line, ye.GetMessage()
	}
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return 0, msg
}

// parseYAML parses y with go-yaml, keeping each top-level key's file line. The parser is
// third-party code fed with untrusted input, so a panic in it becomes an error rather than a crash.
func parseYAML(y []byte) (fm *Frontmatter, err error) {
	defer func() {
		if r := recover(); r != nil {
			fm, err = nil, fmt.Errorf("YAML parser failed: %v", r)
		}
	}()
	f, err := parser.ParseBytes(y, 0)
	if err != nil {
		return nil, err
	}
	fm = &Frontmatter{Keys: []string{}, Values: map[string]any{}, Lines: map[string]int{}}
	if len(f.Docs) == 0 || f.Docs[0] == nil || f.Docs[0].Body == nil {
		return fm, nil
	}
	var values []*ast.MappingValueNode
	switch body := f.Docs[0].Body.(type) {
	case *ast.MappingNode:
		values = body.Values
	case *ast.MappingValueNode:
		values = []*ast.MappingValueNode{body}
	case *ast.CommentNode:
		return fm, nil
	default:
		return nil, &notMapping{kind: strings.ToLower(strings.TrimSuffix(body.Type().String(), "Type"))}
	}
	// Decode the whole mapping at once so anchors and aliases resolve, then pair keys with lines.
	var all map[string]any
	if err := yaml.NodeToValue(f.Docs[0].Body, &all); err != nil {
		return nil, err
	}
	// Decoded aliases share their value; every later use expands them (see the package doc).
	if limit := ExpansionLimit(len(y)); ExpandedSize(all, limit) > limit {
		return nil, &aliasBomb{limit: limit}
	}
	for _, v := range values {
		if v == nil || v.Key == nil {
			continue
		}
		var k any
		if err := yaml.NodeToValue(v.Key, &k); err != nil {
			return nil, err
		}
		key := fmt.Sprint(k)
		if _, dup := fm.Lines[key]; dup {
			return nil, &yaml.DuplicateKeyError{Message: fmt.Sprintf("key %q appears twice", key), Token: v.Key.GetToken()}
		}
		line := 0
		if tk := v.Key.GetToken(); tk != nil && tk.Position != nil {
			line = tk.Position.Line
		}
		fm.Keys = append(fm.Keys, key)
		fm.Lines[key] = line + 1
		fm.Values[key] = all[key]
		if raw := rawScalars(v.Value); len(raw) > 0 {
			if fm.RawScalars == nil {
				fm.RawScalars = map[string]map[string]string{}
			}
			fm.RawScalars[key] = raw
		}
	}
	return fm, nil
}

// rawScalars returns the source text of the non-string scalar values of a mapping node, by key.
func rawScalars(n ast.Node) map[string]string {
	var values []*ast.MappingValueNode
	switch t := n.(type) {
	case *ast.MappingNode:
		values = t.Values
	case *ast.MappingValueNode:
		values = []*ast.MappingValueNode{t}
	default:
		return nil
	}
	var out map[string]string
	for _, v := range values {
		if v == nil || v.Key == nil || v.Value == nil {
			continue
		}
		switch v.Value.Type() {
		case ast.IntegerType, ast.FloatType, ast.BoolType, ast.InfinityType, ast.NanType:
			if tk := v.Value.GetToken(); tk != nil {
				if out == nil {
					out = map[string]string{}
				}
				out[v.Key.String()] = tk.Value
			}
		}
	}
	return out
}

// quoteColonValues rewrites lines like `description: Use when: x` (invalid YAML: a plain value
// may not hold ": ") into `description: 'Use when: x'`, and `argument-hint: [a] [b]` into a
// quoted string. It returns the new text and the 1-based YAML lines it changed. The text of a
// block scalar (the lines under `key: |` or `key: >`) is left as written: there ": " is valid.
func quoteColonValues(y []byte) ([]byte, []int) {
	lines := strings.Split(string(y), "\n")
	var changed []int
	inBlock, blockIndent := false, 0
	for i, l := range lines {
		indent := len(l) - len(strings.TrimLeft(l, " "))
		rest := l[indent:]
		if inBlock {
			if strings.TrimSpace(l) == "" || indent > blockIndent {
				continue
			}
			inBlock = false
		}
		if startsBlockScalar(rest) {
			inBlock, blockIndent = true, indent
			continue
		}
		colon := strings.Index(rest, ": ")
		if colon <= 0 || !isPlainKey(rest[:colon]) {
			continue
		}
		key, val := rest[:colon], strings.TrimSpace(rest[colon+2:])
		if val == "" {
			continue
		}
		flowHint := key == "argument-hint" && val[0] == '['
		if !flowHint {
			if strings.IndexByte("\"'[{|>&*!%@`#", val[0]) >= 0 {
				continue
			}
			if !strings.Contains(val, ": ") && !strings.HasSuffix(val, ":") {
				continue
			}
		}
		lines[i] = l[:indent] + key + ": '" + strings.ReplaceAll(val, "'", "''") + "'"
		changed = append(changed, i+1)
	}
	return []byte(strings.Join(lines, "\n")), changed
}

// startsBlockScalar reports whether a line (without its indent) is a mapping entry, possibly a
// list item, whose value is a block scalar header such as "|", ">-" or "|2 # comment".
func startsBlockScalar(rest string) bool {
	for strings.HasPrefix(rest, "- ") {
		rest = strings.TrimLeft(rest[2:], " ")
	}
	colon := strings.Index(rest, ": ")
	if colon <= 0 {
		return false
	}
	v := strings.TrimSpace(rest[colon+2:])
	if i := strings.Index(v, " #"); i >= 0 {
		v = strings.TrimSpace(v[:i])
	}
	if v == "" || v[0] != '|' && v[0] != '>' {
		return false
	}
	return strings.Trim(v[1:], "0123456789+-") == ""
}

// isPlainKey reports whether k is a simple mapping key (letters, digits, '-', '_', '.').
func isPlainKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

package skill

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

// utf8BOM is the byte order mark some editors put at the start of a file.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// Frontmatter is the parsed YAML header of a SKILL.md file.
//
// Keys lists every top-level key in file order, unknown ones included; Values holds each key's
// decoded YAML value (string, bool, int, float, []any, map[string]any or nil) and Lines its
// 1-based line in the file. Body is the Markdown after the closing "---", with CRLF turned into
// LF and surrounding blank space trimmed; BodyLine is the file line where it starts.
type Frontmatter struct {
	Keys     []string
	Values   map[string]any
	Lines    map[string]int
	Body     string
	BodyLine int

	// rawMeta keeps the source text of non-string scalar metadata values ("1.0" stays "1.0").
	rawMeta map[string]string
}

// finding is one problem found while parsing, before it becomes a Diagnostic. Lenient is the
// severity reported by discovery ("" when discovery stays silent); Rule, when set, is the strict
// rule broken, which Validate reports as an error.
type finding struct {
	line    int
	lenient Severity
	rule    Rule
	msg     string
}

func (f finding) fatal() bool { return f.lenient == SeverityError }

// ParseFrontmatter parses the frontmatter of a SKILL.md held in data, leniently: a BOM and CRLF
// line ends are accepted, an unquoted value holding ": " is quoted and parsed again (with a
// warning), invalid UTF-8 is replaced (with a warning). It returns nil and an error diagnostic
// when there is no usable frontmatter (none, never closed, not YAML, not a mapping). path only
// labels the diagnostics. It never panics, whatever data holds.
func ParseFrontmatter(path string, data []byte) (*Frontmatter, []Diagnostic) {
	fm, fs := parseFrontmatter(data)
	return fm, lenientDiagnostics(path, fs)
}

// lenientDiagnostics turns findings into the diagnostics discovery reports.
func lenientDiagnostics(path string, fs []finding) []Diagnostic {
	var out []Diagnostic
	for _, f := range fs {
		if f.lenient == "" {
			continue
		}
		out = append(out, Diagnostic{Path: path, Line: f.line, Severity: f.lenient, Rule: f.rule, Message: f.msg})
	}
	return out
}

// strictDiagnostics turns findings into the diagnostics Validate reports: strict rules only.
func strictDiagnostics(path string, fs []finding) []Diagnostic {
	var out []Diagnostic
	for _, f := range fs {
		if f.rule == "" {
			continue
		}
		out = append(out, Diagnostic{Path: path, Line: f.line, Severity: SeverityError, Rule: f.rule, Message: f.msg})
	}
	return out
}

// block locates the frontmatter inside a SKILL.md.
type block struct {
	yaml     []byte // between the "---" lines, without them
	body     []byte // after the closing "---" line
	bodyLine int    // file line where body starts
	closed   bool
	opened   bool
}

// stripBOM returns data without a leading UTF-8 byte order mark.
func stripBOM(data []byte) []byte {
	return bytes.TrimPrefix(data, utf8BOM)
}

// isFence reports whether line (without its "\n") is a "---" delimiter line.
func isFence(line []byte) bool {
	line = bytes.TrimRight(line, " \t\r")
	return len(line) == 3 && line[0] == '-' && line[1] == '-' && line[2] == '-'
}

// splitBlock finds the opening "---" on the first line and the next "---" line after it.
// data must already be without BOM.
func splitBlock(data []byte) block {
	nl := bytes.IndexByte(data, '\n')
	first := data
	if nl >= 0 {
		first = data[:nl]
	}
	if !isFence(first) {
		return block{}
	}
	if nl < 0 {
		return block{opened: true}
	}
	start := nl + 1
	line := 2
	for pos := start; pos < len(data); line++ {
		end := bytes.IndexByte(data[pos:], '\n')
		var cur []byte
		next := len(data)
		if end >= 0 {
			cur = data[pos : pos+end]
			next = pos + end + 1
		} else {
			cur = data[pos:]
		}
		if isFence(cur) {
			return block{yaml: data[start:pos], body: data[next:], bodyLine: line + 1, closed: true, opened: true}
		}
		pos = next
	}
	return block{opened: true}
}

// normalizeNewlines turns CRLF and lone CR into LF.
func normalizeNewlines(b []byte) []byte {
	if bytes.IndexByte(b, '\r') < 0 {
		return b
	}
	b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
	return bytes.ReplaceAll(b, []byte("\r"), []byte("\n"))
}

// parseFrontmatter splits data and parses its YAML. A nil Frontmatter comes with a fatal finding.
func parseFrontmatter(data []byte) (*Frontmatter, []finding) {
	return parseHead(data, true, true)
}

// parseHead is parseFrontmatter for a file's head. complete says data is the whole file (so an
// unclosed block is really unclosed); wantBody false skips the body, which discovery never needs.
func parseHead(data []byte, complete, wantBody bool) (*Frontmatter, []finding) {
	data = stripBOM(data)
	b := splitBlock(data)
	if !b.opened {
		return nil, []finding{{line: 1, lenient: SeverityError, rule: RuleFrontmatter,
			msg: "no frontmatter: SKILL.md must start with a \"---\" line followed by YAML and a closing \"---\" line"}}
	}
	if !b.closed {
		msg := "frontmatter opened on line 1 is never closed by a \"---\" line"
		if !complete {
			msg = fmt.Sprintf("frontmatter opened on line 1 is not closed by a \"---\" line within the first %d KiB", len(data)>>10)
		}
		return nil, []finding{{line: 1, lenient: SeverityError, rule: RuleFrontmatter, msg: msg}}
	}
	fm, fs := parseYAMLBlock(b.yaml)
	if fm == nil || !wantBody {
		return fm, fs
	}
	body := normalizeNewlines(b.body)
	// Count the blank lines trimmed from the top so BodyLine points at the first text line.
	lead := len(body) - len(bytes.TrimLeft(body, " \t\n"))
	fm.BodyLine = b.bodyLine + bytes.Count(body[:lead], []byte("\n"))
	fm.Body = trimBody(body)
	return fm, fs
}

// trimBody returns b as text without surrounding blank space, invalid UTF-8 replaced by U+FFFD.
func trimBody(b []byte) string {
	return strings.ToValidUTF8(strings.TrimSpace(string(b)), "\uFFFD")
}

// parseYAMLBlock parses the YAML between the fences. Line numbers in findings are file lines:
// YAML line n is file line n+1, the opening fence being line 1.
func parseYAMLBlock(y []byte) (*Frontmatter, []finding) {
	var fs []finding
	y = normalizeNewlines(y)
	if !utf8.Valid(y) {
		fs = append(fs, finding{line: firstInvalidUTF8Line(y) + 1, lenient: SeverityWarning, rule: RuleYAML,
			msg: "frontmatter is not valid UTF-8; invalid bytes replaced with U+FFFD"})
		y = bytes.ToValidUTF8(y, []byte("\uFFFD"))
	}
	if fm, ok := fastParse(y); ok {
		return fm, fs
	}
	fm, err := parseYAML(y)
	if err == nil {
		return fm, fs
	}
	line, msg := yamlErrorPosition(err)
	if fixed, lines := quoteColonValues(y); len(lines) > 0 {
		if fm2, err2 := parseYAML(fixed); err2 == nil {
			for _, l := range lines {
				fs = append(fs, finding{line: l + 1, lenient: SeverityWarning, rule: RuleYAML,
					msg: "unquoted value contains \": \" (invalid YAML); read as a quoted string"})
			}
			return fm2, fs
		}
	}
	var nm *notMapping
	var ab *aliasBomb
	if errors.As(err, &nm) || errors.As(err, &ab) {
		return nil, append(fs, finding{line: 2, lenient: SeverityError, rule: RuleYAML, msg: err.Error()})
	}
	return nil, append(fs, finding{line: line + 1, lenient: SeverityError, rule: RuleYAML,
		msg: "frontmatter is not valid YAML: " + msg})
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

// expandedSize measures v as it would be written out with aliases expanded: one per value plus
// the bytes of each string and key. It stops counting once the size passes limit.
func expandedSize(v any, limit int) int {
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

// parseYAML parses y with go-yaml, keeping each top-level key's line. The parser is third-party
// code fed with untrusted input, so a panic in it becomes an error rather than a crash.
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
	// Decoded aliases share their value; every later use (strings made of lists, JSON
	// fingerprints) expands them. Written out, a frontmatter holds about as many bytes as it
	// decodes to, so a much larger expansion can only come from aliases (a "billion laughs").
	if limit := 4*len(y) + 64<<10; expandedSize(all, limit) > limit {
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
		if key == "metadata" {
			fm.rawMeta = rawScalars(v.Value)
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
	out := map[string]string{}
	for _, v := range values {
		if v == nil || v.Key == nil || v.Value == nil {
			continue
		}
		switch v.Value.Type() {
		case ast.IntegerType, ast.FloatType, ast.BoolType, ast.InfinityType, ast.NanType:
			if tk := v.Value.GetToken(); tk != nil {
				out[v.Key.String()] = tk.Value
			}
		}
	}
	return out
}

// quoteColonValues rewrites lines like `description: Use when: x` (invalid YAML: a plain value
// may not hold ": ") into `description: 'Use when: x'`, and `argument-hint: [a] [b]` into a
// quoted string. It returns the new text and the 1-based YAML lines it changed.
func quoteColonValues(y []byte) ([]byte, []int) {
	lines := strings.Split(string(y), "\n")
	var changed []int
	for i, l := range lines {
		indent := len(l) - len(strings.TrimLeft(l, " "))
		rest := l[indent:]
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

// fastParse handles the common frontmatter shape without the YAML parser: every line blank, a
// comment, or `key: value` at column 0 where value is a plain scalar that YAML would read as that
// exact string, or a double-quoted string without escapes. Anything else returns ok=false and
// the caller uses the full parser, so results are identical (FuzzParseFrontmatter checks this).
func fastParse(y []byte) (*Frontmatter, bool) {
	fm := &Frontmatter{Values: make(map[string]any, 4), Lines: make(map[string]int, 4), Keys: make([]string, 0, 4)}
	line := 0
	for len(y) > 0 {
		line++
		var l []byte
		if i := bytes.IndexByte(y, '\n'); i >= 0 {
			l, y = y[:i], y[i+1:]
		} else {
			l, y = y, nil
		}
		if len(bytes.TrimRight(l, " ")) == 0 {
			continue
		}
		if l[0] == '#' {
			continue
		}
		colon := bytes.IndexByte(l, ':')
		if colon <= 0 || !isFastKey(l[:colon]) {
			return nil, false
		}
		key := string(l[:colon])
		if _, dup := fm.Lines[key]; dup {
			return nil, false
		}
		var val any
		switch {
		case colon+1 == len(l):
			// "key:" opening a block mapping of simple values, such as metadata.
			m, rest, n, ok := fastNested(y)
			if !ok {
				return nil, false
			}
			val, y = m, rest
			fm.Keys = append(fm.Keys, key)
			fm.Lines[key] = line + 1
			fm.Values[key] = val
			line += n
			continue
		case l[colon+1] == ' ':
			str, ok := fastScalar(bytes.Trim(l[colon+2:], " "))
			if !ok {
				return nil, false
			}
			val = str
		default:
			return nil, false
		}
		fm.Keys = append(fm.Keys, key)
		fm.Lines[key] = line + 1
		fm.Values[key] = val
	}
	return fm, true
}

// fastNested reads the indented `key: value` lines after a "key:" line, all at one indent, as
// a map of strings. It returns the rest of y and how many lines it took; ok is false for
// anything else (no lines, mixed indents, deeper nesting, values fastScalar refuses).
func fastNested(y []byte) (m map[string]any, rest []byte, n int, ok bool) {
	m = map[string]any{}
	indent := 0
	for len(y) > 0 && y[0] == ' ' {
		var l, next []byte
		if i := bytes.IndexByte(y, '\n'); i >= 0 {
			l, next = y[:i], y[i+1:]
		} else {
			l, next = y, nil
		}
		w := len(l) - len(bytes.TrimLeft(l, " "))
		if indent == 0 {
			indent = w
		}
		if w != indent || w == len(l) {
			return nil, nil, 0, false
		}
		l = l[w:]
		colon := bytes.IndexByte(l, ':')
		if colon <= 0 || colon+1 >= len(l) || l[colon+1] != ' ' || !isFastKey(l[:colon]) {
			return nil, nil, 0, false
		}
		key := string(l[:colon])
		if _, dup := m[key]; dup {
			return nil, nil, 0, false
		}
		val, ok := fastScalar(bytes.Trim(l[colon+2:], " "))
		if !ok {
			return nil, nil, 0, false
		}
		m[key] = val
		y = next
		n++
	}
	if n == 0 {
		return nil, nil, 0, false
	}
	return m, y, n, true
}

// isFastKey reports whether k is a key YAML reads as exactly this string: letters, digits, '-'
// and '_', starting with a letter, and not a word YAML reads as a bool or null.
func isFastKey(k []byte) bool {
	if len(k) == 0 || !(k[0] >= 'a' && k[0] <= 'z' || k[0] >= 'A' && k[0] <= 'Z') {
		return false
	}
	for _, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return !yamlWord(k)
}

// yamlWord reports whether a plain scalar is one YAML may read as a bool, null or float.
func yamlWord(v []byte) bool {
	switch strings.ToLower(string(v)) {
	case "true", "false", "yes", "no", "on", "off", "null", "y", "n", "nan", "inf":
		return true
	}
	return false
}

// fastScalar returns the string YAML reads from v, when that is certain without a parser.
func fastScalar(v []byte) (string, bool) {
	if len(v) == 0 {
		return "", false
	}
	if v[0] == '"' {
		if len(v) < 2 || v[len(v)-1] != '"' {
			return "", false
		}
		inner := v[1 : len(v)-1]
		if bytes.IndexByte(inner, '"') >= 0 || bytes.IndexByte(inner, '\\') >= 0 || !printable(inner) {
			return "", false
		}
		return string(inner), true
	}
	c := v[0]
	// A plain scalar that starts with a letter cannot be a number, and one of the words below
	// would be a bool or null; everything else special goes to the full parser.
	if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
		return "", false
	}
	if bytes.Contains(v, []byte(": ")) || bytes.Contains(v, []byte(" #")) || v[len(v)-1] == ':' || !printable(v) {
		return "", false
	}
	if yamlWord(v) {
		return "", false
	}
	return string(v), true
}

// printable reports whether b holds only printable characters other than tab, so that YAML has
// nothing to say about it. Non-ASCII runes are allowed; C0/C1 controls and DEL are not.
func printable(b []byte) bool {
	for len(b) > 0 {
		c := b[0]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return false
			}
			b = b[1:]
			continue
		}
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError || r >= 0x80 && r <= 0x9f || r == 0xFEFF || r == 0x2028 || r == 0x2029 {
			return false
		}
		b = b[size:]
	}
	return true
}

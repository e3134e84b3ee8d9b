package frontmatter

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// fastParse handles the common frontmatter shape without the YAML parser: every line blank, a
// comment, or `key: value` at column 0 where value is a plain scalar that YAML would read as that
// exact string, or a double-quoted string without escapes. Anything else returns ok=false and
// the caller uses the full parser, so results are identical to the parser's.
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

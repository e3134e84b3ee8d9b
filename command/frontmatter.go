package command

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/goccy/go-yaml"
)

// Severities of a Diagnostic.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
)

// Diagnostic reports a problem found in a command file. Line is 1-based, 0 when the problem
// concerns the whole file.
type Diagnostic struct {
	Path     string `json:"path"`
	Line     int    `json:"line,omitempty"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
}

func (d Diagnostic) String() string {
	if d.Line > 0 {
		return fmt.Sprintf("%s:%d: %s: %s", d.Path, d.Line, d.Severity, d.Message)
	}
	return fmt.Sprintf("%s: %s: %s", d.Path, d.Severity, d.Message)
}

// meta is what a command file's frontmatter says.
type meta struct {
	Description  string
	ArgumentHint string
	AllowedTools []string
	Model        string
}

// parsed is a command file split into frontmatter and body.
type parsed struct {
	meta
	body  string
	diags []Diagnostic // Path left empty; the caller fills it
}

// parseFile reads a command file leniently: a BOM and CRLF line ends are tolerated, a missing
// frontmatter is fine, and YAML that does not parse still yields the keys that can be read line by
// line. It never fails; problems become diagnostics.
func parseFile(src []byte) parsed {
	text := string(src)
	text = strings.TrimPrefix(text, "\uFEFF")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	var p parsed
	if !utf8.ValidString(text) {
		p.diags = append(p.diags, Diagnostic{Severity: SeverityWarning, Message: "file is not valid UTF-8; invalid bytes replaced"})
		text = strings.ToValidUTF8(text, "\uFFFD")
	}

	front, body, status := splitFrontmatter(text)
	switch status {
	case frontUnclosed:
		p.diags = append(p.diags, Diagnostic{Line: 1, Severity: SeverityWarning,
			Message: "frontmatter opened with --- is never closed; the whole file is read as the body"})
		body = text
	case frontFound:
		p.readFront(front)
	}
	p.body = strings.TrimLeft(body, "\n")
	if p.Description == "" {
		p.Description = firstLine(body)
	}
	return p
}

type frontStatus int

const (
	frontNone frontStatus = iota
	frontFound
	frontUnclosed
)

// splitFrontmatter splits text at its first two "---" lines (trailing blanks allowed).
func splitFrontmatter(text string) (front, body string, status frontStatus) {
	first, rest, _ := strings.Cut(text, "\n")
	if strings.TrimRight(first, " \t") != "---" {
		return "", text, frontNone
	}
	for off := 0; off <= len(rest); {
		end := strings.IndexByte(rest[off:], '\n')
		var l string
		next := len(rest) + 1
		if end >= 0 {
			l, next = rest[off:off+end], off+end+1
		} else {
			l = rest[off:]
		}
		if strings.TrimRight(l, " \t") == "---" {
			b := ""
			if next <= len(rest) {
				b = rest[next:]
			}
			return rest[:off], b, frontFound
		}
		off = next
	}
	return "", "", frontUnclosed
}

// readFront decodes the frontmatter YAML (which starts on file line 2).
func (p *parsed) readFront(front string) {
	const firstLine = 2
	m, err := decodeYAML(front)
	if err != nil {
		line, msg := firstLine, err.Error()
		var yerr yaml.Error
		if errors.As(err, &yerr) {
			msg = yerr.GetMessage()
			if tk := yerr.GetToken(); tk != nil && tk.Position != nil {
				line = firstLine + tk.Position.Line - 1
			}
		}
		p.diags = append(p.diags, Diagnostic{Line: line, Severity: SeverityError,
			Message: "frontmatter is not valid YAML (" + msg + "); keys read line by line instead"})
		m = nil
	}
	raw := rawValues(front)
	get := func(key string) (any, bool) {
		if m != nil {
			v, ok := m[key]
			return v, ok
		}
		v, ok := raw[key]
		if !ok {
			return nil, false
		}
		return v.text, true
	}
	lineOf := func(key string) int { return firstLine + raw[key].line }

	if v, ok := get("description"); ok {
		p.Description = p.scalar("description", v, lineOf("description"))
	}
	if v, ok := get("argument-hint"); ok {
		if _, isString := v.(string); !isString && v != nil {
			// [file] [mode] is the usual hint and YAML reads it as a list: keep what was typed.
			v = raw["argument-hint"].text
		}
		p.ArgumentHint = p.scalar("argument-hint", v, lineOf("argument-hint"))
	}
	if v, ok := get("model"); ok {
		p.Model = p.scalar("model", v, lineOf("model"))
	}
	if v, ok := get("allowed-tools"); ok {
		p.AllowedTools = p.toolList(v, lineOf("allowed-tools"))
	}
}

// decodeYAML decodes a frontmatter mapping. go-yaml is third-party code fed with files from
// cloned repositories, so a panic in it becomes an error (and the line-by-line fallback) rather
// than a crash of the host.
func decodeYAML(front string) (m map[string]any, err error) {
	defer func() {
		if r := recover(); r != nil {
			m, err = nil, fmt.Errorf("YAML parser failed: %v", r)
		}
	}()
	err = yaml.Unmarshal([]byte(front), &m)
	return m, err
}

// scalar turns a frontmatter value into a string, reporting values that are not scalars.
func (p *parsed) scalar(key string, v any, line int) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return strings.TrimSpace(v)
	case bool, int, int64, uint64, float64:
		return fmt.Sprint(v)
	}
	p.diags = append(p.diags, Diagnostic{Line: line, Severity: SeverityWarning,
		Message: fmt.Sprintf("%s should be a string, not %T; ignored", key, v)})
	return ""
}

// toolList reads allowed-tools as a YAML list or a comma- or space-separated string. Commas take
// precedence, since tool patterns such as "Bash(git add:*)" contain spaces.
func (p *parsed) toolList(v any, line int) []string {
	var out []string
	switch v := v.(type) {
	case nil:
		return nil
	case string:
		if !strings.Contains(v, ",") {
			return strings.Fields(v)
		}
		for _, f := range strings.Split(v, ",") {
			if f = strings.TrimSpace(f); f != "" {
				out = append(out, f)
			}
		}
		return out
	case []any:
		for _, e := range v {
			if s := p.scalar("allowed-tools entry", e, line); s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	p.diags = append(p.diags, Diagnostic{Line: line, Severity: SeverityWarning,
		Message: fmt.Sprintf("allowed-tools should be a list or a string, not %T; ignored", v)})
	return nil
}

type rawValue struct {
	text string
	line int // 0-based within the frontmatter
}

// rawValues reads top-level "key: value" lines without YAML, for the fallback and for hints YAML
// misreads. Surrounding quotes are removed from a value.
func rawValues(front string) map[string]rawValue {
	out := make(map[string]rawValue)
	for i, l := range strings.Split(front, "\n") {
		if l == "" || l[0] == ' ' || l[0] == '\t' || l[0] == '#' || l[0] == '-' {
			continue
		}
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		k = strings.TrimSpace(k)
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
			v = v[1 : len(v)-1]
		}
		if _, dup := out[k]; !dup {
			out[k] = rawValue{text: v, line: i}
		}
	}
	return out
}

// firstLine returns the first non-empty line of body, without Markdown heading marks.
func firstLine(body string) string {
	for l := range strings.SplitSeq(body, "\n") {
		l = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "#"))
		if l != "" {
			return l
		}
	}
	return ""
}

package command

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/agentpool/agentpool/frontmatter"
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

// String formats d as "path:line: severity: message", the form compilers use, without the line
// when it is 0.
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
	var p parsed
	if !utf8.Valid(src) {
		p.diags = append(p.diags, Diagnostic{Severity: SeverityWarning, Message: "file is not valid UTF-8; invalid bytes replaced"})
		src = bytes.ToValidUTF8(src, []byte("\uFFFD"))
	}
	b := frontmatter.Split(frontmatter.NormalizeNewlines(src))
	switch {
	case b.Closed:
		p.readFront(b.YAML)
	case b.Opened:
		// Body is then the whole file.
		p.diags = append(p.diags, Diagnostic{Line: 1, Severity: SeverityWarning,
			Message: "frontmatter opened with --- is never closed; the whole file is read as the body"})
	}
	body := string(b.Body)
	p.body = strings.TrimLeft(body, "\n")
	if p.Description == "" {
		p.Description = firstLine(body)
	}
	return p
}

// readFront reads the frontmatter YAML with package frontmatter; when that fails, the keys are
// read as plain "key: value" lines so that the command still loads.
func (p *parsed) readFront(y []byte) {
	fm, ds := frontmatter.Parse("", y)
	for _, d := range ds {
		sev, msg := SeverityWarning, d.Message
		if d.Severity == frontmatter.SeverityError {
			sev, msg = SeverityError, msg+"; keys read line by line instead"
		}
		p.diags = append(p.diags, Diagnostic{Line: d.Line, Severity: sev, Message: msg})
	}
	front := string(y)
	raw := rawValues(front)
	get := func(key string) (any, bool) {
		if fm != nil {
			v, ok := fm.Values[key]
			return v, ok
		}
		v, ok := raw[key]
		if !ok {
			return nil, false
		}
		return v.text, true
	}
	lineOf := func(key string) int {
		if fm != nil {
			return fm.Lines[key]
		}
		return 2 + raw[key].line // the YAML starts on file line 2
	}

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
		tools, err := frontmatter.AllowedTools(v)
		if err != nil {
			p.diags = append(p.diags, Diagnostic{Line: lineOf("allowed-tools"), Severity: SeverityWarning, Message: err.Error()})
		}
		p.AllowedTools = tools
	}
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

type rawValue struct {
	text string
	line int // 0-based within the frontmatter
}

// rawValues reads top-level "key: value" lines without YAML, for the fallback and for hints YAML
// misreads. front has LF line ends. Surrounding quotes are removed from a value.
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

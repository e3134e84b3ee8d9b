package skill

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/agentpool/agentpool/frontmatter"
)

// Frontmatter is the parsed YAML header of a SKILL.md file: the keys, values and lines that
// package frontmatter reads (Keys lists every top-level key in file order, unknown ones
// included; Values holds each key's decoded YAML value and Lines its 1-based line in the file),
// and the body. Body is the Markdown after the closing "---", with CRLF and CR turned into LF and
// surrounding blank space trimmed; BodyLine is the file line where it starts.
type Frontmatter struct {
	frontmatter.Frontmatter
	Body     string
	BodyLine int
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

// ParseFrontmatter parses the frontmatter of a SKILL.md held in data, leniently: a BOM, CRLF and
// lone CR line ends are accepted, an unquoted value holding ": " is quoted and parsed again (with a
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

// parseFrontmatter splits data and parses its YAML. A nil Frontmatter comes with a fatal finding.
func parseFrontmatter(data []byte) (*Frontmatter, []finding) {
	return parseHead(data, true, true)
}

// parseHead is parseFrontmatter for a file's head. complete says data is the whole file (so an
// unclosed block is really unclosed); wantBody false skips the body, which discovery never needs.
func parseHead(data []byte, complete, wantBody bool) (*Frontmatter, []finding) {
	b := frontmatter.Split(data)
	if !b.Opened {
		return nil, []finding{{line: 1, lenient: SeverityError, rule: RuleFrontmatter,
			msg: "no frontmatter: SKILL.md must start with a \"---\" line followed by YAML and a closing \"---\" line"}}
	}
	if !b.Closed {
		msg := "frontmatter opened on line 1 is never closed by a \"---\" line"
		if !complete {
			msg = fmt.Sprintf("frontmatter opened on line 1 is not closed by a \"---\" line within the first %d KiB", len(b.Body)>>10)
		}
		return nil, []finding{{line: 1, lenient: SeverityError, rule: RuleFrontmatter, msg: msg}}
	}
	parsed, ds := frontmatter.Parse("", b.YAML)
	var fs []finding
	for _, d := range ds {
		// Every problem package frontmatter reports is about the YAML itself.
		sev := SeverityWarning
		if d.Severity == frontmatter.SeverityError {
			sev = SeverityError
		}
		fs = append(fs, finding{line: d.Line, lenient: sev, rule: RuleYAML, msg: d.Message})
	}
	if parsed == nil {
		return nil, fs
	}
	fm := &Frontmatter{Frontmatter: *parsed}
	if !wantBody {
		return fm, fs
	}
	body := frontmatter.NormalizeNewlines(b.Body)
	// Count the blank lines trimmed from the top so BodyLine points at the first text line.
	lead := len(body) - len(bytes.TrimLeft(body, " \t\n"))
	fm.BodyLine = b.BodyLine + bytes.Count(body[:lead], []byte("\n"))
	fm.Body = trimBody(body)
	return fm, fs
}

// trimBody returns b as text without surrounding blank space, invalid UTF-8 replaced by U+FFFD.
func trimBody(b []byte) string {
	return strings.ToValidUTF8(strings.TrimSpace(string(b)), "\uFFFD")
}

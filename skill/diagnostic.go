package skill

import (
	"fmt"
	"sort"
)

// Severity says how bad a Diagnostic is.
type Severity string

// The two severities. An error means the skill (or the whole file) was skipped during
// discovery, or, from Validate, that a strict rule of the specification is broken. A warning
// means the skill loaded anyway.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Rule names the strict rule of the Agent Skills specification a Diagnostic reports. Diagnostics
// that report no strict rule (a lenient repair, a shadowed duplicate, a scan limit) have an empty
// Rule.
type Rule string

// The strict rules Validate checks.
const (
	RuleFrontmatter   Rule = "frontmatter"   // SKILL.md must start with a closed YAML frontmatter block
	RuleYAML          Rule = "yaml"          // the frontmatter must be valid YAML holding a mapping
	RuleName          Rule = "name"          // 1-64 of a-z, 0-9 and '-', no leading, trailing or double '-'
	RuleNameFolder    Rule = "name-folder"   // name must equal the skill's folder
	RuleDescription   Rule = "description"   // 1-1024 characters
	RuleCompatibility Rule = "compatibility" // 1-500 characters when present
	RuleMetadata      Rule = "metadata"      // a map from string keys to string values
	RuleAllowedTools  Rule = "allowed-tools" // a space-separated string
	RuleLicense       Rule = "license"       // a string
	RuleUnknownKey    Rule = "unknown-key"   // only the six keys the specification defines
	RuleSkillFile     Rule = "skill-file"    // a skill is a folder holding a readable SKILL.md
)

// Diagnostic reports one problem found in a skill: the file, the 1-based line (0 when the
// problem is not tied to a line, such as an unreadable file), how bad it is, and a message that
// names what is wrong. Rule is set when the problem breaks a strict rule of the specification.
type Diagnostic struct {
	Path     string   `json:"path"`
	Line     int      `json:"line"`
	Severity Severity `json:"severity"`
	Rule     Rule     `json:"rule,omitempty"`
	Message  string   `json:"message"`
}

// String formats d as "path:line: severity: message", the form compilers use.
func (d Diagnostic) String() string {
	if d.Line > 0 {
		return fmt.Sprintf("%s:%d: %s: %s", d.Path, d.Line, d.Severity, d.Message)
	}
	return fmt.Sprintf("%s: %s: %s", d.Path, d.Severity, d.Message)
}

// sortDiagnostics orders diagnostics by path, then line, keeping the order of equal ones.
func sortDiagnostics(ds []Diagnostic) {
	sort.SliceStable(ds, func(i, j int) bool {
		if ds[i].Path != ds[j].Path {
			return ds[i].Path < ds[j].Path
		}
		return ds[i].Line < ds[j].Line
	})
}

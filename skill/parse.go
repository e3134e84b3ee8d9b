package skill

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentpool/agentpool/frontmatter"
)

// Limits from the specification.
const (
	maxNameLen          = 64
	maxDescriptionLen   = 1024
	maxCompatibilityLen = 500
)

// specKeys are the frontmatter keys the specification defines.
var specKeys = map[string]bool{"name": true, "description": true, "license": true, "compatibility": true,
	"metadata": true, "allowed-tools": true}

// clientKeys are keys outside the specification that agentpool reads or that widely used clients
// define; discovery accepts them silently, strict validation reports them as unknown.
var clientKeys = map[string]bool{"user-invocable": true, "argument-hint": true, "always-active": true,
	"always_active": true, "disable-model-invocation": true, "mcp-servers": true, "model": true,
	"when_to_use": true, "version": true, "context": true, "agent": true, "hooks": true}

// ParseSkill parses a whole SKILL.md leniently, as discovery does: the skill's folder is the
// directory holding path. It returns nil and an error diagnostic when the skill cannot load (no
// usable frontmatter, no description), and otherwise the skill with a warning for each broken
// rule. Companion files (mcp.json) are not read. ParseSkill never panics.
func ParseSkill(path string, data []byte) (*Skill, []Diagnostic) {
	fm, fs := parseFrontmatter(data)
	var s *Skill
	if fm != nil {
		var more []finding
		s, more = interpret(fm, path)
		fs = append(fs, more...)
	}
	return s, lenientDiagnostics(path, fs)
}

// interpret turns parsed frontmatter into a Skill. It returns nil when a fatal finding was made.
func interpret(fm *Frontmatter, path string) (*Skill, []finding) {
	dir := filepath.Dir(path)
	folder := filepath.Base(dir)
	s := &Skill{Path: path, Dir: dir, UserInvocable: true}
	var fs []finding
	add := func(key string, sev Severity, rule Rule, format string, args ...any) {
		line := fm.Lines[key]
		if line == 0 {
			line = 1
		}
		fs = append(fs, finding{line: line, lenient: sev, rule: rule, msg: fmt.Sprintf(format, args...)})
	}

	// description: required; without it the model cannot know when to use the skill.
	switch v, ok := fm.Values["description"]; {
	case !ok || v == nil:
		add("description", SeverityError, RuleDescription, "description is missing; the skill is skipped (the model needs it to know when to use the skill)")
	case !isScalar(v):
		add("description", SeverityError, RuleDescription, "description is %s, not a string; the skill is skipped", kindOf(v))
	default:
		d, isStr := v.(string)
		if !isStr {
			d = scalarString(v)
			add("description", SeverityWarning, RuleDescription, "description is %s, not a string; read as %q", kindOf(v), d)
		}
		s.Description = strings.TrimSpace(d)
		if s.Description == "" {
			add("description", SeverityError, RuleDescription, "description is empty; the skill is skipped (the model needs it to know when to use the skill)")
		} else if n := utf8.RuneCountInString(d); n > maxDescriptionLen {
			add("description", SeverityWarning, RuleDescription, "description is %d characters, more than %d", n, maxDescriptionLen)
		}
	}

	fs = append(fs, interpretName(fm, s, folder)...)

	for _, key := range fm.Keys {
		v := fm.Values[key]
		switch key {
		case "name", "description":
		case "license":
			s.License = scalarString(v)
			if !isString(v) {
				add(key, SeverityWarning, RuleLicense, "license is %s, not a string", kindOf(v))
			}
		case "compatibility":
			s.Compatibility = scalarString(v)
			switch n := utf8.RuneCountInString(s.Compatibility); {
			case !isString(v):
				add(key, SeverityWarning, RuleCompatibility, "compatibility is %s, not a string", kindOf(v))
			case n == 0:
				add(key, SeverityWarning, RuleCompatibility, "compatibility is empty; it must be 1-%d characters when present", maxCompatibilityLen)
			case n > maxCompatibilityLen:
				add(key, SeverityWarning, RuleCompatibility, "compatibility is %d characters, more than %d", n, maxCompatibilityLen)
			}
		case "metadata":
			s.Metadata = interpretMetadata(v, fm.RawScalars[key], func(rule Rule, format string, args ...any) {
				add(key, SeverityWarning, rule, format, args...)
			})
		case "allowed-tools":
			s.AllowedToolsSet = true
			tools, err := frontmatter.AllowedTools(v)
			s.AllowedTools = tools
			switch v.(type) {
			case nil:
				add(key, SeverityWarning, "", "allowed-tools is empty: the skill's MCP servers contribute no tools")
			case string: // the specification's form
			case []any:
				add(key, SeverityWarning, RuleAllowedTools, "allowed-tools is a list; the specification wants a space-separated string (read as the listed tools)")
			default:
				add(key, SeverityWarning, RuleAllowedTools, "allowed-tools is %s, not a space-separated string", kindOf(v))
			}
			if err != nil {
				add(key, SeverityWarning, "", "%v", err)
			}
		case "user-invocable":
			s.UserInvocable = boolValue(v, true, func(format string, args ...any) { add(key, SeverityWarning, "", format, args...) })
		case "always-active", "always_active":
			s.AlwaysActive = s.AlwaysActive || boolValue(v, false, func(format string, args ...any) { add(key, SeverityWarning, "", format, args...) })
		case "disable-model-invocation":
			s.DisableModelInvocation = boolValue(v, false, func(format string, args ...any) { add(key, SeverityWarning, "", format, args...) })
		case "argument-hint":
			s.ArgumentHint = argumentHint(v)
			s.DeclaresArguments = true
		case "mcp-servers":
			servers, more := parseServers(v, dir, path, fm.Lines[key])
			s.Servers = servers
			fs = append(fs, more...)
		default:
			if key == "arguments" { // kept in Extra as written; only its presence is read
				s.DeclaresArguments = true
			}
			if s.Extra == nil {
				s.Extra = map[string]any{}
			}
			s.Extra[key] = v
		}
		if !specKeys[key] {
			sev := SeverityWarning
			if clientKeys[key] {
				sev = "" // known to agentpool or to common clients: only strict validation reports it
			}
			add(key, sev, RuleUnknownKey, "key %q is not defined by the Agent Skills specification (kept)", key)
		}
	}
	for _, f := range fs {
		if f.fatal() {
			return nil, fs
		}
	}
	return s, fs
}

// interpretName applies the name rules: the frontmatter name is kept when it is usable as a
// skill name (a-z, 0-9 and single inner hyphens, any length); otherwise the folder name is used,
// and failing that a lowercase, hyphenated form of the declared name.
func interpretName(fm *Frontmatter, s *Skill, folder string) []finding {
	var fs []finding
	line := fm.Lines["name"]
	if line == 0 {
		line = 1
	}
	add := func(sev Severity, rule Rule, format string, args ...any) {
		fs = append(fs, finding{line: line, lenient: sev, rule: rule, msg: fmt.Sprintf(format, args...)})
	}
	v, present := fm.Values["name"]
	declared := ""
	switch {
	case !present || v == nil:
		add(SeverityWarning, RuleName, "name is missing")
	case !isScalar(v):
		add(SeverityWarning, RuleName, "name is %s, not a string", kindOf(v))
	default:
		declared = strings.TrimSpace(scalarString(v))
		if !isString(v) {
			add(SeverityWarning, RuleName, "name is %s, not a string", kindOf(v))
		}
	}
	s.DeclaredName = declared
	if declared != "" {
		for _, problem := range nameProblems(declared) {
			add(SeverityWarning, RuleName, "name %q %s", declared, problem)
		}
		if declared != folder {
			add(SeverityWarning, RuleNameFolder, "name %q does not match its folder %q", declared, folder)
		}
	}
	switch {
	case declared != "" && usableName(declared):
		s.Name = declared
	case usableName(folder):
		s.Name = folder
	default:
		s.Name = slug(declared)
		if s.Name == "" {
			s.Name = slug(folder)
		}
	}
	if s.Name == "" {
		add(SeverityError, "", "no usable skill name in the frontmatter or the folder name %q; the skill is skipped", folder)
	} else if s.Name != declared && declared != "" {
		add(SeverityWarning, "", "using %q as the skill's name", s.Name)
	}
	return fs
}

// nameProblems lists how name breaks the specification's name rules.
func nameProblems(name string) []string {
	var out []string
	if n := utf8.RuneCountInString(name); n > maxNameLen {
		out = append(out, fmt.Sprintf("is %d characters, more than %d", n, maxNameLen))
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			out = append(out, "may hold only lowercase letters a-z, digits and hyphens")
			break
		}
	}
	if strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-") {
		out = append(out, "must not start or end with a hyphen")
	}
	if strings.Contains(name, "--") {
		out = append(out, "must not contain consecutive hyphens")
	}
	return out
}

// usableName reports whether name can serve as a skill name and URI authority: the
// specification's character rules, without its length limit.
func usableName(name string) bool {
	if name == "" || name[0] == '-' || name[len(name)-1] == '-' || strings.Contains(name, "--") {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// slug lowercases s and turns every run of other characters into one hyphen.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		} else {
			dash = true
		}
	}
	return b.String()
}

// interpretMetadata reads metadata as a string map, stringifying other values.
func interpretMetadata(v any, raw map[string]string, report func(Rule, string, ...any)) map[string]string {
	if v == nil {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		report(RuleMetadata, "metadata is %s, not a mapping of strings; ignored", kindOf(v))
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(map[string]string, len(m))
	for _, k := range keys {
		x := m[k]
		out[k] = scalarString(x)
		if r, ok := raw[k]; ok && isScalar(x) && x != nil {
			out[k] = r
		}
		if !isString(x) {
			report(RuleMetadata, "metadata %q is %s, not a string; read as %q", k, kindOf(x), out[k])
		}
	}
	return out
}

// boolValue reads a YAML bool, accepting the strings "true" and "false" with a warning.
func boolValue(v any, def bool, warn func(string, ...any)) bool {
	switch t := v.(type) {
	case bool:
		return t
	case string:
		if b, err := strconv.ParseBool(strings.TrimSpace(t)); err == nil {
			warn("%q is a string; read as %t", t, b)
			return b
		}
	}
	warn("value %s is not true or false; using %t", scalarString(v), def)
	return def
}

// argumentHint reads argument-hint; `[file]` in YAML is a list, read back as "[file]".
func argumentHint(v any) string {
	if list, ok := v.([]any); ok {
		parts := make([]string, 0, len(list))
		for _, x := range list {
			parts = append(parts, "["+scalarString(x)+"]")
		}
		return strings.Join(parts, " ")
	}
	return scalarString(v)
}

// isScalar reports whether v is a YAML scalar (not a list or mapping).
func isScalar(v any) bool {
	switch v.(type) {
	case []any, map[string]any, map[any]any:
		return false
	}
	return true
}

func isString(v any) bool { _, ok := v.(string); return ok }

// scalarString renders a decoded YAML value as a string: scalars as written, lists and
// mappings as JSON.
func scalarString(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case bool, int, int64, uint64, float64:
		return fmt.Sprint(t)
	}
	if b, err := json.Marshal(v); err == nil {
		return string(b)
	}
	return fmt.Sprint(v)
}

// kindOf names the YAML kind of v for messages.
func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int, int64, uint64, uint, int32:
		return "an integer"
	case float64, float32:
		return "a number"
	case []any:
		return "a list"
	case map[string]any, map[any]any:
		return "a mapping"
	}
	return fmt.Sprintf("a %T", v)
}

package skill

import (
	"fmt"
	"os"
	"path/filepath"
)

// Validate checks skills against the strict rules of the Agent Skills specification and returns
// one error diagnostic per broken rule, with file and line, and nothing else (lenient repairs,
// duplicate names and other notes are discovery's business). path may be a SKILL.md file, a
// skill folder, or any folder: every skill found under a folder is checked, nested ones
// included, with discovery's default bounds. The returned error is set only when path itself
// cannot be read.
//
// The rules: SKILL.md starts with a closed YAML frontmatter block holding a mapping; name is
// 1-64 characters of a-z, 0-9 and '-', without leading, trailing or consecutive hyphens, and
// equals its folder's name; description is a string of 1-1024 characters; compatibility, when
// present, 1-500 characters; license a string; metadata a map of string values; allowed-tools a
// string; no keys besides name, description, license, compatibility, metadata and allowed-tools.
func Validate(path string) ([]Diagnostic, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("validate %s: %w", path, err)
	}
	if !info.IsDir() {
		return validateFile(path), nil
	}
	w := walker{opts: (*DiscoverOptions)(nil).withDefaults(), visited: map[string]string{}}
	w.walkRoot(path)
	if len(w.cands) == 0 {
		return []Diagnostic{{Path: path, Severity: SeverityError, Rule: RuleSkillFile,
			Message: "no skill found: no folder here holds a SKILL.md"}}, nil
	}
	var out []Diagnostic
	for _, c := range w.cands {
		out = append(out, validateFile(c.path())...)
	}
	sortDiagnostics(out)
	return out, nil
}

// validateFile checks one SKILL.md.
func validateFile(path string) []Diagnostic {
	fail := func(format string, args ...any) []Diagnostic {
		return []Diagnostic{{Path: path, Severity: SeverityError, Rule: RuleSkillFile, Message: fmt.Sprintf(format, args...)}}
	}
	f, err := os.Open(path)
	if err != nil {
		return fail("cannot open: %v", unwrapPath(err))
	}
	defer f.Close()
	data, err := readAllLimited(f, filepath.Base(path))
	if err != nil {
		return fail("%v", unwrapPath(err))
	}
	fm, fs := parseHead(data, true, false)
	if fm != nil {
		named := path
		if b := filepath.Base(filepath.Dir(path)); b == "." || b == ".." || b == string(filepath.Separator) {
			if abs, err := filepath.Abs(path); err == nil {
				named = abs
			}
		}
		_, more := interpret(fm, named)
		fs = append(fs, more...)
	}
	return strictDiagnostics(path, fs)
}

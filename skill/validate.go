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
// included. The returned error is set only when path itself cannot be read.
//
// Validate finds and reads skills exactly as Discover does with its default bounds: the same
// folders skipped, the same depth and folder limits, SKILL.md read only to the end
// of a frontmatter of at most 64 KiB, a symlinked SKILL.md confined to its folder. So whatever
// would keep discovery from loading a skill is a failure here too (rule skill-file): a skill
// too deep to load, a folder limit reached, a folder that cannot be read.
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
		dir := filepath.Dir(path)
		real, err := realPath(dir)
		if err != nil {
			return nil, fmt.Errorf("validate %s: %w", path, err)
		}
		return validateFile(path, real), nil
	}
	w := newWalker((*DiscoverOptions)(nil).withDefaults())
	w.walkRoot(path, false)
	var out []Diagnostic
	for _, d := range w.lost {
		d.Severity, d.Rule = SeverityError, RuleSkillFile
		out = append(out, d)
	}
	if len(w.cands) == 0 && len(out) == 0 {
		return []Diagnostic{{Path: path, Severity: SeverityError, Rule: RuleSkillFile,
			Message: "no skill found: no folder here holds a SKILL.md"}}, nil
	}
	for _, c := range w.cands {
		out = append(out, validateFile(c.path(), c.realDir)...)
	}
	sortDiagnostics(out)
	return out, nil
}

// validateFile checks one SKILL.md, read as discovery reads it.
func validateFile(path, realDir string) []Diagnostic {
	bufp := headPool.Get().(*[]byte)
	defer headPool.Put(bufp)
	data, complete, _, err := readSkillHead(path, realDir, *bufp)
	if err != nil {
		return []Diagnostic{{Path: path, Severity: SeverityError, Rule: RuleSkillFile, Message: err.Error()}}
	}
	fm, fs := parseHead(data, complete, false)
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

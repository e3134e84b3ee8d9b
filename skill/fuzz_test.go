package skill

import "testing"

// FuzzParseFrontmatter feeds arbitrary bytes to the lenient parser: it must never panic and every
// diagnostic must have a line >= 0. That the YAML fast path agrees with the YAML parser is
// checked where the fast path lives, by frontmatter.FuzzParse.
func FuzzParseFrontmatter(f *testing.F) {
	for _, c := range generatedCases() {
		if len(c.content) < 4096 { // large seeds make minimisation crawl
			f.Add([]byte(c.content))
		}
	}
	for _, s := range []string{
		"---\nname: a\ndescription: b\n---\nbody",
		"---\nname: \"quoted\"\ndescription: 'single'\n---\n",
		"---\nname: a\ndescription: Use when: x\nargument-hint: [a] [b]\n---\n",
		"---\nname: yes\ndescription: null\nversion: 1.0\n---\n",
		"---\nkey: value # comment\n---\n",
		"---\n&a x: *a\n---\n",
		"---\na: &x [1, 2]\nb: *x\n---\n",
		"---\nmetadata:\n  a: 1\n  b: {c: d}\n---\n",
		"---\nname: a\ndescription: b\nmetadata:\n  author: me\n  version: \"1.0\"\nlicense: MIT\n---\n",
		"---\nmetadata:\n  a: x\n   b: y\n---\n",
		"---\n---\n",
		"---",
		"\uFEFF---\r\nname: x\r\n---\r\n",
		"---\nname: x\nname: y\n---\n",
		"---\nNull: x\ntrue: y\n---\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fm, diags := ParseFrontmatter("SKILL.md", data)
		for _, d := range diags {
			if d.Line < 0 || d.Path != "SKILL.md" || (d.Severity != SeverityError && d.Severity != SeverityWarning) || d.Message == "" {
				t.Fatalf("bad diagnostic %+v", d)
			}
		}
		if fm != nil {
			for k, l := range fm.Lines {
				if l < 1 {
					t.Fatalf("key %q on line %d", k, l)
				}
			}
		}
		ParseSkill("dir/SKILL.md", data)
	})
}

package skill

import (
	"reflect"
	"testing"
)

// FuzzParseFrontmatter feeds arbitrary bytes to the lenient parser: it must never panic, every
// diagnostic must have a line >= 0, and whenever the fast path accepts a block the YAML parser
// must read exactly the same keys, values and lines from it.
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
		// The fast path must agree with the YAML parser.
		b := splitBlock(stripBOM(data))
		if !b.closed {
			return
		}
		y := normalizeNewlines(b.yaml)
		fast, ok := fastParse(y)
		if !ok {
			return
		}
		slow, err := parseYAML(y)
		if err != nil {
			t.Fatalf("fast path accepted %q, YAML parser failed: %v", y, err)
		}
		if !reflect.DeepEqual(fast.Keys, slow.Keys) || !reflect.DeepEqual(fast.Values, slow.Values) || !reflect.DeepEqual(fast.Lines, slow.Lines) {
			t.Fatalf("fast path and YAML parser disagree on %q:\nfast %v %q %v\nslow %v %q %v", y, fast.Keys, fast.Values, fast.Lines, slow.Keys, slow.Values, slow.Lines)
		}
	})
}

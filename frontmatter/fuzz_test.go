package frontmatter

import (
	"reflect"
	"testing"
)

// FuzzParse feeds arbitrary bytes to Split and Parse: they must never panic, every diagnostic
// must be complete with a line >= 1, a nil result must come with an error, and whenever the fast
// path accepts a block the YAML parser must read exactly the same keys, values and lines from it.
func FuzzParse(f *testing.F) {
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
		"---\nallowed-tools: Bash(git diff:*) Read\n---\n",
		"---\nallowed-tools:\n  - Read\n  - [x]\n---\n",
		"---\n\x00\x01\x02: [\xff\xfe\n---\nBody",
		"---\ndescription:\n  - 1\n  - {a: b}\nmodel: 3.5\n---\n",
		"---\n- a\n- b\n---\n",
		"---\rname: a\rdescription: lone CR\r---\rbody",
		"---\r\rk: v\r\n---\r\nb",
		"---\n\n\nname: a\nbad: [\n---\n",
		"---\ndescription: |\n  Usage: run: this\nother: u: v\n---\n",
		"---\ndescription: >-\n  Note: a: b\n\n  more\nwhen: x: y\n---\n",
		"---\na: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n---\n",
		"---\n<<: {a: b}\nc: d\n---\n",
		"---\na: b\n...\nc: d\n---\n",
		"---\nallowed-tools: Bash(git diff:*), Read\n---\n",
		"---\nallowed-tools: Bash(a (b) c) Read Bash(unbalanced Write\n---\n",
		"---\nallowed-tools: \"Read, Write\" 'Bash(x:*)'\n---\n",
		"---\nallowed-tools: Read) Write,,\n---\n",
		"---\na: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n---\n",
		"---\na: {{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{\n---\n",
		"---\nmetadata:\n  a: b\n\n  c: d\n---\n",
		"---\nmetadata:\n\ta: b\n---\n",
		"---\n%YAML 1.2\na: b\n---\n",
		"---\na: !!binary aGVsbG8=\nb: !!str 1\nc: !custom x\n---\n",
		"---\n? [a, b]\n: c\n---\n",
		"---\na: 'x\n  y'\nb: \"p\\\"q\"\n---\n",
		"---\nkey:\n---\n",
		"---\nname: a\u2028b\ndescription: \u0085x\n---\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b := Split(data)
		if !b.Closed {
			return
		}
		fm, ds := Parse("f.md", b.YAML)
		fatal := false
		for _, d := range ds {
			if d.Line < 1 || d.Path != "f.md" || (d.Severity != SeverityError && d.Severity != SeverityWarning) || d.Message == "" {
				t.Fatalf("bad diagnostic %+v", d)
			}
			fatal = fatal || d.Severity == SeverityError
		}
		if (fm == nil) != fatal {
			t.Fatalf("Parse = %v with diagnostics %v: nil exactly when there is an error", fm, ds)
		}
		if fm != nil {
			for k, l := range fm.Lines {
				if l < 2 {
					t.Fatalf("key %q on line %d", k, l)
				}
			}
			_, _ = AllowedTools(fm.Values["allowed-tools"])
		}
		// The fast path must agree with the YAML parser.
		y := NormalizeNewlines(b.YAML)
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

package frontmatter

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// wantDiag is one expected diagnostic: its line, severity and a part of its message.
type wantDiag struct {
	line int
	sev  Severity
	msg  string
}

func checkDiags(t *testing.T, name string, got []Diagnostic, want []wantDiag) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: diagnostics %v, want %d", name, got, len(want))
		return
	}
	for i, w := range want {
		d := got[i]
		if d.Path != "f.md" || d.Line != w.line || d.Severity != w.sev || !strings.Contains(d.Message, w.msg) {
			t.Errorf("%s: diagnostic %d = %v, want line %d %s containing %q", name, i, d, w.line, w.sev, w.msg)
		}
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name   string
		yaml   string
		keys   []string
		values map[string]any
		lines  map[string]int
		diags  []wantDiag
	}{
		{name: "plain keys (fast path)", yaml: "name: a\n# comment\n\ndescription: \"b c\"\n",
			keys: []string{"name", "description"}, values: map[string]any{"name": "a", "description": "b c"},
			lines: map[string]int{"name": 2, "description": 5}},
		{name: "nested strings (fast path)", yaml: "name: a\nmetadata:\n  author: me\n  team: x\nlicense: MIT\n",
			keys: []string{"name", "metadata", "license"}, values: map[string]any{"name": "a", "metadata": map[string]any{"author": "me", "team": "x"}, "license": "MIT"},
			lines: map[string]int{"name": 2, "metadata": 3, "license": 6}},
		{name: "YAML values", yaml: "n: 1\nb: true\nl: [x, y]\nnull-value:\n",
			keys: []string{"n", "b", "l", "null-value"}, values: map[string]any{"n": uint64(1), "b": true, "l": []any{"x", "y"}, "null-value": nil},
			lines: map[string]int{"n": 2, "b": 3, "l": 4, "null-value": 5}},
		{name: "CRLF and lone CR", yaml: "a: x\r\nb: y\rc: z\r\n",
			keys: []string{"a", "b", "c"}, values: map[string]any{"a": "x", "b": "y", "c": "z"}, lines: map[string]int{"a": 2, "b": 3, "c": 4}},
		{name: "empty", yaml: "", keys: []string{}, values: map[string]any{}, lines: map[string]int{}},
		{name: "comment only", yaml: "# nothing\n", keys: []string{}, values: map[string]any{}, lines: map[string]int{}},
		{name: "unquoted colon repaired", yaml: "name: a\ndescription: Use when: x\n",
			keys: []string{"name", "description"}, values: map[string]any{"name": "a", "description": "Use when: x"},
			lines: map[string]int{"name": 2, "description": 3},
			diags: []wantDiag{{3, SeverityWarning, `unquoted value contains ": "`}}},
		{name: "repair leaves block scalars alone", yaml: "description: |\n  Usage: run: this\n\n  Note: x:\nwhen: Use when: x\nlist:\n  - text: >-\n      Tip: a: b\n",
			keys:   []string{"description", "when", "list"},
			values: map[string]any{"description": "Usage: run: this\n\nNote: x:\n", "when": "Use when: x", "list": []any{map[string]any{"text": "Tip: a: b"}}},
			lines:  map[string]int{"description": 2, "when": 6, "list": 7},
			diags:  []wantDiag{{6, SeverityWarning, `unquoted value contains ": "`}}},
		{name: "argument-hint as typed", yaml: "argument-hint: [pr] [priority]\n",
			keys: []string{"argument-hint"}, values: map[string]any{"argument-hint": "[pr] [priority]"}, lines: map[string]int{"argument-hint": 2},
			diags: []wantDiag{{2, SeverityWarning, "unquoted value"}}},
		{name: "invalid UTF-8", yaml: "a: x\nb: caf\xe9\n",
			keys: []string{"a", "b"}, values: map[string]any{"a": "x", "b": "caf\uFFFD"}, lines: map[string]int{"a": 2, "b": 3},
			diags: []wantDiag{{3, SeverityWarning, "not valid UTF-8"}}},
		{name: "not YAML", yaml: "name: a\ndescription: [unclosed\n", diags: []wantDiag{{3, SeverityError, "not valid YAML"}}},
		{name: "not a mapping", yaml: "- a\n- b\n", diags: []wantDiag{{2, SeverityError, "not a mapping"}}},
		{name: "a scalar", yaml: "just text\n", diags: []wantDiag{{2, SeverityError, "not a mapping"}}},
		{name: "duplicate key", yaml: "a: x\nb: y\na: z\n", diags: []wantDiag{{4, SeverityError, `"a"`}}},
	}
	for _, tt := range tests {
		fm, ds := Parse("f.md", []byte(tt.yaml))
		checkDiags(t, tt.name, ds, tt.diags)
		if tt.keys == nil {
			if fm != nil {
				t.Errorf("%s: Parse accepted %q: %+v", tt.name, tt.yaml, fm)
			}
			continue
		}
		if fm == nil {
			t.Errorf("%s: Parse(%q) = nil", tt.name, tt.yaml)
			continue
		}
		if diff := cmp.Diff(tt.keys, fm.Keys); diff != "" {
			t.Errorf("%s: keys (-want +got):\n%s", tt.name, diff)
		}
		if diff := cmp.Diff(tt.values, fm.Values); diff != "" {
			t.Errorf("%s: values (-want +got):\n%s", tt.name, diff)
		}
		if diff := cmp.Diff(tt.lines, fm.Lines); diff != "" {
			t.Errorf("%s: lines (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestRawScalars(t *testing.T) {
	fm, ds := Parse("f.md", []byte("metadata:\n  version: 1.0\n  beta: true\n  name: x\n  tags: [a]\nother:\n  n: 0x10\nscalar: 2.50\n"))
	if fm == nil {
		t.Fatalf("Parse: %v", ds)
	}
	want := map[string]map[string]string{"metadata": {"version": "1.0", "beta": "true"}, "other": {"n": "0x10"}}
	if diff := cmp.Diff(want, fm.RawScalars); diff != "" {
		t.Errorf("RawScalars (-want +got):\n%s", diff)
	}
}

func TestDiagnosticString(t *testing.T) {
	d := Diagnostic{Path: "x/SKILL.md", Line: 3, Severity: SeverityWarning, Message: "m"}
	if got := d.String(); got != "x/SKILL.md:3: warning: m" {
		t.Errorf("String() = %q", got)
	}
}

// billionLaughs returns a frontmatter of a few hundred bytes whose YAML aliases expand to
// 9^levels strings under the key written by key (a format taking the last anchor's number).
func billionLaughs(levels int, key string) string {
	var b strings.Builder
	b.WriteString("name: bomb\ndescription: d\nl0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i < levels; i++ {
		a := fmt.Sprintf("*a%d", i-1)
		fmt.Fprintf(&b, "l%d: &a%d [%s]\n", i, i, strings.Repeat(a+", ", 8)+a)
	}
	fmt.Fprintf(&b, "%s\n", fmt.Sprintf(key, levels-1))
	return b.String()
}

// TestAliasBombRefused: a small frontmatter whose aliases expand to millions of values is
// refused, wherever the alias is used, and aliases within reason still work.
func TestAliasBombRefused(t *testing.T) {
	for _, key := range []string{"metadata:\n  k: *a%d", "allowed-tools: *a%d", "hooks: *a%d",
		"mcp-servers:\n  s:\n    command: x\n    args: *a%d"} {
		y := billionLaughs(7, key) // 9^7 = 4.8 million strings
		fm, ds := Parse("f.md", []byte(y))
		if fm != nil {
			t.Errorf("%d-byte frontmatter expanding to 4.8 million values accepted (%s)", len(y), key)
		}
		checkDiags(t, key, ds, []wantDiag{{2, SeverityError, "aliases expand"}})
	}
	fm, ds := Parse("f.md", []byte("x: &x [a, b]\nallowed-tools: *x\n"))
	if fm == nil {
		t.Fatalf("small alias refused: %v", ds)
	}
	if tools, err := AllowedTools(fm.Values["allowed-tools"]); err != nil || len(tools) != 2 {
		t.Errorf("aliased allowed-tools = %q, %v", tools, err)
	}
}

// TestParseRefusesHugeYAML checks that a frontmatter too long for the YAML parser, whose time
// grows with the square of a mapping's keys, is refused rather than parsed for minutes, while
// one of the same length that the fast path reads still loads.
func TestParseRefusesHugeYAML(t *testing.T) {
	var b strings.Builder
	for i := range maxYAMLLines + 1 {
		fmt.Fprintf(&b, "k%d: 1.5\n", i)
	}
	fm, ds := Parse("f.md", []byte(b.String()))
	if fm != nil {
		t.Fatalf("Parse accepted %d lines of YAML", maxYAMLLines+1)
	}
	checkDiags(t, "huge", ds, []wantDiag{{maxYAMLLines + 2, SeverityError, "lines"}})

	fast := strings.ReplaceAll(b.String(), "1.5", "text")
	if fm, ds := Parse("f.md", []byte(fast)); fm == nil || len(fm.Keys) != maxYAMLLines+1 {
		t.Fatalf("Parse refused %d plain key: value lines: %v", maxYAMLLines+1, ds)
	}
}

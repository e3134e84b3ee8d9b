package cmdline

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		line string
		want []string
	}{
		{"", nil},
		{"   \t\n", nil},
		{"a b  c", []string{"a", "b", "c"}},
		{"  lead trail  ", []string{"lead", "trail"}},
		{"'a b'", []string{"a b"}},
		{`"a \"b\""`, []string{`a "b"`}},
		{`a\ b`, []string{"a b"}},
		{`'it''s'`, []string{"its"}},
		{`'don'\''t'`, []string{"don't"}},
		{`'\n stays'`, []string{`\n stays`}},
		{`"C:\path\file"`, []string{`C:\path\file`}},
		{`"back\\slash"`, []string{`back\slash`}},
		{`a'b c'd`, []string{"ab cd"}},
		{`'' ""`, []string{"", ""}},
		{`x '' y`, []string{"x", "", "y"}},
		{`\'`, []string{"'"}},
		{`\\`, []string{`\`}},
		{`end\`, []string{`end\`}},
		{"tab\tsep\nline", []string{"tab", "sep", "line"}},
		{"héllo 'wörld 日本' ✓", []string{"héllo", "wörld 日本", "✓"}},
		{"nbsp\u00a0inside", []string{"nbsp\u00a0inside"}},
		{`"mixed 'single' inside"`, []string{"mixed 'single' inside"}},
		{`'mixed "double" inside'`, []string{`mixed "double" inside`}},
	}
	for _, tt := range tests {
		got, err := Split(tt.line)
		if err != nil {
			t.Errorf("Split(%q): %v", tt.line, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Split(%q) mismatch (-want +got):\n%s", tt.line, diff)
		}
		if rt, err := Split(Join(got)); err != nil || !slices.Equal(rt, got) {
			t.Errorf("round trip of %q via %q = %q, %v", got, Join(got), rt, err)
		}
	}
}

func TestSplitErrors(t *testing.T) {
	tests := []struct {
		line   string
		offset string
	}{
		{`'open`, "single quote at byte offset 0"},
		{`ab "open`, "double quote at byte offset 3"},
		{`"esc\"`, "double quote at byte offset 0"},
		{`ok 'x' 'y`, "single quote at byte offset 7"},
	}
	for _, tt := range tests {
		_, err := Split(tt.line)
		if !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), tt.offset) {
			t.Errorf("Split(%q) error = %v, want ErrSyntax mentioning %q", tt.line, err, tt.offset)
		}
	}
}

func TestParseLine(t *testing.T) {
	tests := []struct {
		line string
		name string
		args []string
		raw  string
	}{
		{"/review", "review", nil, ""},
		{"  /review  ", "review", nil, ""},
		{"/frontend:component 'My Button' --dark", "frontend:component", []string{"My Button", "--dark"}, "'My Button' --dark"},
		{"/fix\tissue 12\n", "fix", []string{"issue", "12"}, "issue 12"},
		{"/everything:simple-prompt", "everything:simple-prompt", nil, ""},
	}
	for _, tt := range tests {
		name, args, raw, err := ParseLine(tt.line)
		if err != nil {
			t.Errorf("ParseLine(%q): %v", tt.line, err)
			continue
		}
		if name != tt.name || !slices.Equal(args, tt.args) || raw != tt.raw {
			t.Errorf("ParseLine(%q) = %q, %q, %q; want %q, %q, %q", tt.line, name, args, raw, tt.name, tt.args, tt.raw)
		}
	}
	for _, bad := range []string{"", "review", "/", "/ x", "/x 'open"} {
		if _, _, _, err := ParseLine(bad); !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseLine(%q) error = %v, want ErrSyntax", bad, err)
		}
	}
}

func FuzzSplit(f *testing.F) {
	for _, s := range []string{
		"", "a b", `'a b'`, `"a \"b\""`, `a\ b`, `'open`, `"open`, `end\`, `a'b c'd`,
		"héllo 'wörld' ✓", "\x00\xff '\xfe'", `"\\\"" '\'`, "/cmd arg",
		`''`, `""`, `'' ""`, "a\\\nb", "\t\v\f\r\n", `"a\'b"`, `'a\'b'`, `a"b"'c'\d`,
		`"C:\path\to\x"`, `"unterminated \"`, `'it'\''s'`, "\u00a0a\u00a0b", "/ x", "/cmd  'a  b'  \"c\"  ",
		"/cmd\targ", "   /x", "/x '", `/x "`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		fields, err := Split(line)
		if err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("Split(%q) error %v does not wrap ErrSyntax", line, err)
			}
			return
		}
		joined := Join(fields)
		again, err := Split(joined)
		if err != nil {
			t.Fatalf("Split(Join(%q)) = %v (joined %q)", fields, err, joined)
		}
		if !slices.Equal(fields, again) {
			t.Fatalf("round trip: %q → %q → %q", fields, joined, again)
		}
		for _, fld := range fields {
			if q, err := Split(Quote(fld)); err != nil || len(q) != 1 || q[0] != fld {
				t.Fatalf("Quote(%q) = %q splits to %q, %v", fld, Quote(fld), q, err)
			}
		}
		_, _, _, _ = ParseLine(line)
	})
}

package command

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExpand(t *testing.T) {
	abc := []string{"a", "b c", "d"}
	tests := []struct {
		name string
		body string
		args []string
		want string
		used bool
	}{
		{"no placeholder", "plain text", abc, "plain text", false},
		{"empty body", "", abc, "", false},
		{"arguments", "run $ARGUMENTS now", abc, "run a b c d now", true},
		{"arguments no args", "run $ARGUMENTS.", nil, "run .", true},
		{"arguments twice", "$ARGUMENTS|$ARGUMENTS", []string{"x"}, "x|x", true},
		{"positional", "$1-$2-$3", abc, "a-b c-d", true},
		{"positional missing", "[$4][$9]", abc, "[][]", true},
		{"dollar ten is $1 then 0", "$10", abc, "a0", true},
		{"dollar zero literal", "$0", abc, "$0", false},
		{"index", "$ARGUMENTS[0]/$ARGUMENTS[1]/$ARGUMENTS[2]", abc, "a/b c/d", true},
		{"index out of range", "<$ARGUMENTS[3]>", abc, "<>", true},
		{"index huge", "<$ARGUMENTS[99999999999999999999999]>", abc, "<>", true},
		{"index leading zeros", "$ARGUMENTS[01]", abc, "b c", true},
		{"bracket without number", "$ARGUMENTS[", abc, "a b c d[", true},
		{"bracket not a number", "$ARGUMENTS[x]", abc, "a b c d[x]", true},
		{"bracket negative", "$ARGUMENTS[-1]", abc, "a b c d[-1]", true},
		{"bracket empty", "$ARGUMENTS[]", abc, "a b c d[]", true},
		{"bracket unclosed digits", "$ARGUMENTS[1", abc, "a b c d[1", true},
		{"arguments inside word", "$ARGUMENTSX", []string{"y"}, "yX", true},
		{"double dollar", "$$", abc, "$$", false},
		{"double dollar then positional", "$$1", abc, "$a", true},
		{"lone dollar", "cost: 5$ and $", abc, "cost: 5$ and $", false},
		{"dollar lower case", "$arguments", abc, "$arguments", false},
		{"escape", `\$1 costs \$ARGUMENTS`, abc, "$1 costs $ARGUMENTS", false},
		{"escape with placeholder", `\$1 is $1`, abc, "$1 is a", true},
		{"backslash backslash dollar", `\\$1`, abc, `\$1`, false},
		{"backslash elsewhere literal", `C:\path\n $1`, abc, `C:\path\n a`, true},
		{"trailing backslash", `end\`, abc, `end\`, false},
		{"trailing backslash with placeholder", `$1\`, abc, `a\`, true},
		{"value not rescanned", "$1 $2", []string{"$2", "$ARGUMENTS"}, "$2 $ARGUMENTS", true},
		{"unicode", "héllo $1 → $ARGUMENTS[1] 日本", []string{"wörld", "語"}, "héllo wörld → 語 日本", true},
		{"empty args list", "[$1][$ARGUMENTS][$ARGUMENTS[0]]", []string{}, "[][][]", true},
		{"empty string arg", "[$1][$2]", []string{"", "x"}, "[][x]", true},
		{"newlines kept", "a\n$1\r\nb", []string{"z"}, "a\nz\r\nb", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, used := Expand(tt.body, tt.args)
			if got != tt.want || used != tt.used {
				t.Errorf("Expand(%q, %q) = %q, %v; want %q, %v", tt.body, tt.args, got, used, tt.want, tt.used)
			}
		})
	}
}

func TestExpandSkill(t *testing.T) {
	tests := []struct {
		body string
		args []string
		want string
	}{
		{"Do it.", []string{"x", "y z"}, "Do it.\n\nUser arguments: x y z"},
		{"Do it.", nil, "Do it."},
		{"Do it.", []string{}, "Do it."},
		{"Do $1.", []string{"x", "y"}, "Do x."},
		{`Costs \$5.`, []string{"x"}, "Costs $5.\n\nUser arguments: x"},
		{"Use $ARGUMENTS[1]", []string{"x"}, "Use "},
	}
	for _, tt := range tests {
		if got := ExpandSkill(tt.body, tt.args); got != tt.want {
			t.Errorf("ExpandSkill(%q, %q) = %q, want %q", tt.body, tt.args, got, tt.want)
		}
	}
}

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

func FuzzExpand(f *testing.F) {
	for _, s := range []string{
		"", "$ARGUMENTS", "$1$2$9$10", "$ARGUMENTS[0]", "$ARGUMENTS[", "$ARGUMENTS[99999999999999999999]",
		`\$1`, `\\$1`, "$$", `tail\`, "héllo $1 日本", "\xff$\xfe",
	} {
		f.Add(s, "a b", "c")
	}
	f.Fuzz(func(t *testing.T, body, a1, a2 string) {
		args := []string{a1, a2}
		out, used := Expand(body, args)
		if !strings.Contains(body, "$") && out != body {
			t.Fatalf("body without $ changed: %q → %q", body, out)
		}
		// With no arguments every placeholder is empty, so the output never grows.
		empty, used0 := Expand(body, nil)
		if len(empty) > len(body) {
			t.Fatalf("Expand(%q, nil) grew to %q", body, empty)
		}
		if used != used0 {
			t.Fatalf("used depends on args for %q: %v vs %v", body, used, used0)
		}
		skill := ExpandSkill(body, args)
		if !used && !strings.HasSuffix(skill, "\n\nUser arguments: "+a1+" "+a2) {
			t.Fatalf("ExpandSkill(%q) = %q lacks the user arguments", body, skill)
		}
		if used && skill != out {
			t.Fatalf("ExpandSkill(%q) = %q, want %q", body, skill, out)
		}
	})
}

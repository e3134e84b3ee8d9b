package cmdline

import (
	"strings"
	"testing"
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

func FuzzExpand(f *testing.F) {
	for _, s := range []string{
		"", "$ARGUMENTS", "$1$2$9$10", "$ARGUMENTS[0]", "$ARGUMENTS[", "$ARGUMENTS[99999999999999999999]",
		`\$1`, `\\$1`, "$$", `tail\`, "héllo $1 日本", "\xff$\xfe",
		"$", "$ARGUMENTS[0", "$ARGUMENTS[]", "$ARGUMENTS[-1]", "$ARGUMENTS[1]x$ARGUMENTS[2]", "$ARGUMENTSX",
		"$ARGUMENTS$ARGUMENTS", "$0$1", "$10.00 and $9.99", "awk '{print $1}'", "\\\\$ARGUMENTS", "\\$$1", "$\\1",
		"```\necho $1\n```", "$ARGUMENTS[00000000000000000000001]", "$$$$$$$$$$$$$$$$$$$$$$$$$$$$1",
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

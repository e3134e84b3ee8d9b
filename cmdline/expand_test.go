package cmdline

import (
	"strings"
	"testing"
)

func TestExpand(t *testing.T) {
	abc := []string{"a", "b c", "d"}
	thirteen := strings.Split("a b c d e f g h i j k l m", " ")
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
		{"dollar ten literal", "$10", abc, "$10", false},
		{"dollar ten price literal", "| $10.00 | $50.00 |", abc, "| $10.00 | $50.00 |", false},
		{"dollar price single digit literal", "$5.00 or $3.5", abc, "$5.00 or $3.5", false},
		{"dollar thousands literal", "$1,000 and $2,500.75", abc, "$1,000 and $2,500.75", false},
		{"dollar large literal", "$123456789012345678901234567890", abc, "$123456789012345678901234567890", false},
		{"dollar leading zero literal", "$01", abc, "$01", false},
		{"positional before sentence dot", "see $1.", abc, "see a.", true},
		{"positional before comma", "$1, $2,$3", abc, "a, b c,d", true},
		{"positional before short group", "$1,00", abc, "a,00", true},
		{"positional then dot word", "$1.go", abc, "a.go", true},
		{"awk field outside fence", "awk '{print $1}'", abc, "awk '{print a}'", true},
		{"dollar zero literal", "$0", abc, "$0", false},
		{"index", "$ARGUMENTS[0]/$ARGUMENTS[1]/$ARGUMENTS[2]", abc, "a/b c/d", true},
		{"index out of range", "<$ARGUMENTS[3]>", abc, "<>", true},
		{"index twelve out of range", "<$ARGUMENTS[12]>", abc, "<>", true},
		{"index twelve", "<$ARGUMENTS[12]>", thirteen, "<m>", true},
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
		{"each positional", "$1$2$3$4$5$6$7$8$9", thirteen, "abcdefghi", true},
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

		// Fenced code blocks (CommonMark: ``` or ~~~, closed by the same character, at least as long).
		{"fence literal", "$1\n```\nawk '{print $1}' $ARGUMENTS\n```\n$2", abc, "a\n```\nawk '{print $1}' $ARGUMENTS\n```\nb c", true},
		{"fence only placeholders", "```sh\necho $1\n```", abc, "```sh\necho $1\n```", false},
		{"tilde fence", "~~~\n$1\n~~~\n$1", abc, "~~~\n$1\n~~~\na", true},
		{"fence info string literal", "```$1\n$2\n```", abc, "```$1\n$2\n```", false},
		{"fence escape kept", "```\n\\$1\n```\n\\$1", abc, "```\n\\$1\n```\n$1", false},
		{"tilde does not close backtick", "```\n~~~\n$1\n```\n$1", abc, "```\n~~~\n$1\n```\na", true},
		{"backtick does not close tilde", "~~~\n```\n$1\n~~~\n$1", abc, "~~~\n```\n$1\n~~~\na", true},
		{"shorter does not close", "````\n```\n$1\n````\n$1", abc, "````\n```\n$1\n````\na", true},
		{"longer closes", "```\n$1\n`````\n$1", abc, "```\n$1\n`````\na", true},
		{"closing with info is content", "```\n``` x\n$1\n```\n$1", abc, "```\n``` x\n$1\n```\na", true},
		{"closing trailing spaces", "```\n$1\n```  \n$1", abc, "```\n$1\n```  \na", true},
		{"unclosed fence to end", "$1\n```\n$1\n$2", abc, "a\n```\n$1\n$2", true},
		{"two backticks no fence", "``\n$1\n``", abc, "``\na\n``", true},
		{"backtick in info not a fence", "``` a`b\n$1", abc, "``` a`b\na", true},
		{"tilde info may hold backtick", "~~~ a`b\n$1\n~~~\n$1", abc, "~~~ a`b\n$1\n~~~\na", true},
		{"fence mid line not a fence", "run ```\n$1", abc, "run ```\na", true},
		{"indented fence in list", "1. step\n   ```bash\n   echo $1\n   ```\n2. $1", abc, "1. step\n   ```bash\n   echo $1\n   ```\n2. a", true},
		{"blockquote fence", "> ```\n> $1\n> ```\n$1", abc, "> ```\n> $1\n> ```\na", true},
		{"crlf fence", "```\r\n$1\r\n```\r\n$1", abc, "```\r\n$1\r\n```\r\na", true},
		{"inline code not a fence", "`$1`", abc, "`a`", true},
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

func TestExpandTemplate(t *testing.T) {
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
		{"Costs $10.00.", []string{"x"}, "Costs $10.00.\n\nUser arguments: x"},
		{"```\n$1\n```", []string{"x"}, "```\n$1\n```\n\nUser arguments: x"},
	}
	for _, tt := range tests {
		if got := ExpandTemplate(tt.body, tt.args); got != tt.want {
			t.Errorf("ExpandTemplate(%q, %q) = %q, want %q", tt.body, tt.args, got, tt.want)
		}
	}
}

func TestAppendArguments(t *testing.T) {
	body := "| $10.00 | $5.00 |\nawk '{print $1}' $ARGUMENTS \\$1"
	if got, want := AppendArguments(body, []string{"x", "y z"}), body+"\n\nUser arguments: x y z"; got != want {
		t.Errorf("AppendArguments = %q, want %q", got, want)
	}
	for _, args := range [][]string{nil, {}} {
		if got := AppendArguments(body, args); got != body {
			t.Errorf("AppendArguments(%q) = %q, want the body unchanged", args, got)
		}
	}
}

func TestUsesArguments(t *testing.T) {
	tests := []struct {
		body string
		want bool
	}{
		{"", false},
		{"Do $1 and $2.", false},
		{"Do $ARGUMENTS.", true},
		{"Do $ARGUMENTS[0].", true},
		{`Write \$ARGUMENTS literally.`, false},
		{"```\n$ARGUMENTS\n```", false},
		{"```\n$ARGUMENTS\n```\n$ARGUMENTS", true},
		{"$arguments", false},
	}
	for _, tt := range tests {
		if got := UsesArguments(tt.body); got != tt.want {
			t.Errorf("UsesArguments(%q) = %v, want %v", tt.body, got, tt.want)
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
		tmpl := ExpandTemplate(body, args)
		if !used && !strings.HasSuffix(tmpl, "\n\nUser arguments: "+a1+" "+a2) {
			t.Fatalf("ExpandTemplate(%q) = %q lacks the user arguments", body, tmpl)
		}
		if used && tmpl != out {
			t.Fatalf("ExpandTemplate(%q) = %q, want %q", body, tmpl, out)
		}
		if UsesArguments(body) && !used {
			t.Fatalf("UsesArguments(%q) but Expand found no placeholder", body)
		}
		// A body that is not a template is never rewritten.
		if got := AppendArguments(body, args); got != body+"\n\nUser arguments: "+a1+" "+a2 {
			t.Fatalf("AppendArguments(%q) = %q", body, got)
		}
	})
}

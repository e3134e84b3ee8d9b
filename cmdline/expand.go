package cmdline

import (
	"strconv"
	"strings"
)

const argumentsWord = "$ARGUMENTS"

// argumentsLine introduces the arguments appended to a body that does not place them itself
// (RFC-0051 SkillManagerCap.get_command).
const argumentsLine = "\n\nUser arguments: "

// Expand expands a template: it substitutes $ARGUMENTS (all arguments joined by one space), $1…$9
// and $ARGUMENTS[N] (zero-based), and turns the escape \$ into a literal $. Missing arguments
// expand to "". Fenced code blocks are copied unchanged. It reports whether any placeholder was
// present.
//
// The edge cases, decided once (see the package doc):
//   - $1…$9 are a $ followed by one digit 1–9 that does not continue as a number. A $ followed by
//     any other number is literal text: $0, $01, $10, $10.00, $5.00, $3.5, $1,000. A number is
//     digits, then any ",ddd" groups, then an optional "." and digits; so "$1." and "$1.go" still
//     hold the placeholder $1, and "$1,00" is $1 followed by ",00".
//   - A fenced code block — a line opening with ``` or ~~~ (three or more), up to the line that
//     closes it with the same character repeated at least as often and nothing after it but
//     blanks, or to the end of the body — is copied byte for byte, fence lines included: no
//     placeholder and no escape inside. As in CommonMark a backtick fence's info string may not
//     hold a backtick; unlike CommonMark, the fence may be indented by any amount of blanks and
//     ">" quote markers, so fences in list items and block quotes count too.
//   - $ARGUMENTS[N] needs decimal digits and a closing bracket; otherwise ($ARGUMENTS[, $ARGUMENTS[x],
//     $ARGUMENTS[-1]) the $ARGUMENTS is expanded and the rest is literal text. An index out of range,
//     however large, expands to "".
//   - $ARGUMENTS is matched wherever it appears, even inside a longer word ($ARGUMENTSX).
//   - A $ starting no placeholder is literal: $$ is two dollars, $$1 is "$" then the first argument.
//   - \$ is one literal $ and is not a placeholder (it does not set used); \$1 is the text "$1".
//     A backslash before anything else is literal, and so is a trailing backslash; \\$1 is one
//     literal backslash followed by the escape \$, giving \$1.
//   - Substituted values are inserted verbatim and never re-scanned, so an argument containing
//     "$1" stays as it is.
func Expand(body string, args []string) (expanded string, used bool) {
	out, used, _ := expand(body, args)
	return out, used
}

// ExpandTemplate expands a template body (a command file, or a skill that declares arguments):
// Expand, and when the body holds no placeholder and args is non-empty, appends
// "\n\nUser arguments: " + strings.Join(args, " ") so the arguments still reach the model.
func ExpandTemplate(body string, args []string) string {
	out, used := Expand(body, args)
	if used {
		return out
	}
	return AppendArguments(out, args)
}

// AppendArguments returns a body that is not a template: unchanged, byte for byte, followed by
// "\n\nUser arguments: " + strings.Join(args, " ") when args is non-empty. With no arguments the
// body is returned alone, as Claude Code does.
func AppendArguments(body string, args []string) string {
	if len(args) == 0 {
		return body
	}
	return body + argumentsLine + strings.Join(args, " ")
}

// UsesArguments reports whether body holds a $ARGUMENTS or $ARGUMENTS[N] placeholder as Expand
// reads it: not escaped and not inside fenced code. A skill whose body does is a template.
func UsesArguments(body string) bool {
	if !strings.Contains(body, argumentsWord) {
		return false
	}
	_, _, whole := expand(body, nil)
	return whole
}

// expand implements Expand; whole reports a $ARGUMENTS placeholder in particular.
func expand(body string, args []string) (out string, used, whole bool) {
	if strings.IndexByte(body, '$') < 0 {
		return body, false, false
	}
	var b strings.Builder
	b.Grow(len(body))
	var fenceChar byte // the open fence's character, 0 outside fenced code
	var fenceLen int
	for start := 0; start < len(body); {
		end := strings.IndexByte(body[start:], '\n')
		if end < 0 {
			end = len(body)
		} else {
			end += start + 1
		}
		line := body[start:end]
		start = end
		if fenceChar != 0 {
			if closesFence(line, fenceChar, fenceLen) {
				fenceChar = 0
			}
			b.WriteString(line)
			continue
		}
		if c, n, ok := opensFence(line); ok {
			fenceChar, fenceLen = c, n
			b.WriteString(line)
			continue
		}
		if strings.IndexByte(line, '$') < 0 {
			b.WriteString(line)
			continue
		}
		u, w := expandLine(&b, line, args)
		used = used || u
		whole = whole || w
	}
	return b.String(), used, whole
}

// expandLine writes line, outside fenced code, with its placeholders substituted.
func expandLine(b *strings.Builder, line string, args []string) (used, whole bool) {
	arg := func(i int) string {
		if i >= 0 && i < len(args) {
			return args[i]
		}
		return ""
	}
	for i := 0; i < len(line); {
		c := line[i]
		if c == '\\' && i+1 < len(line) && line[i+1] == '$' {
			b.WriteByte('$')
			i += 2
			continue
		}
		if c != '$' {
			// Copy up to the next byte that may matter in one write.
			j := i + 1
			for j < len(line) && line[j] != '$' && line[j] != '\\' {
				j++
			}
			b.WriteString(line[i:j])
			i = j
			continue
		}
		rest := line[i:]
		switch {
		case strings.HasPrefix(rest, argumentsWord):
			used, whole = true, true
			n := len(argumentsWord)
			if idx, width, ok := bracketIndex(rest[n:]); ok {
				b.WriteString(arg(idx))
				i += n + width
				continue
			}
			b.WriteString(strings.Join(args, " "))
			i += n
		case len(rest) >= 2 && isDigit(rest[1]):
			n := numberLen(rest[1:])
			if n == 1 && rest[1] != '0' {
				used = true
				b.WriteString(arg(int(rest[1] - '1')))
			} else {
				b.WriteString(rest[:1+n]) // a price or a field number: literal
			}
			i += 1 + n
		default:
			b.WriteByte('$')
			i++
		}
	}
	return used, whole
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// numberLen returns the length of the number at the start of s, which begins with a digit: digits,
// then any ",ddd" thousands groups, then an optional "." followed by digits.
func numberLen(s string) int {
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	for n+3 < len(s) && s[n] == ',' && isDigit(s[n+1]) && isDigit(s[n+2]) && isDigit(s[n+3]) &&
		(n+4 == len(s) || !isDigit(s[n+4])) {
		n += 4
	}
	if n+1 < len(s) && s[n] == '.' && isDigit(s[n+1]) {
		n++
		for n < len(s) && isDigit(s[n]) {
			n++
		}
	}
	return n
}

// fenceIndent returns line without its leading blanks and block-quote markers.
func fenceIndent(line string) string {
	return strings.TrimLeft(line, " \t>")
}

// opensFence reports whether line opens a fenced code block, and with which character and length.
func opensFence(line string) (c byte, n int, ok bool) {
	s := fenceIndent(line)
	if len(s) < 3 || (s[0] != '`' && s[0] != '~') {
		return 0, 0, false
	}
	c = s[0]
	for n < len(s) && s[n] == c {
		n++
	}
	if n < 3 || (c == '`' && strings.IndexByte(s[n:], '`') >= 0) {
		return 0, 0, false
	}
	return c, n, true
}

// closesFence reports whether line closes a fence of n characters c: at least n of them, then
// only blanks.
func closesFence(line string, c byte, n int) bool {
	s := fenceIndent(line)
	k := 0
	for k < len(s) && s[k] == c {
		k++
	}
	return k >= n && strings.TrimRight(s[k:], " \t\r\n") == ""
}

// bracketIndex parses "[N]" at the start of s, returning N (or -1 when N overflows an int, which
// no argument list reaches) and the bytes consumed.
func bracketIndex(s string) (idx, width int, ok bool) {
	if len(s) < 3 || s[0] != '[' {
		return 0, 0, false
	}
	end := 1
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	if end == 1 || end >= len(s) || s[end] != ']' {
		return 0, 0, false
	}
	n, err := strconv.Atoi(s[1:end])
	if err != nil {
		n = -1
	}
	return n, end + 1, true
}

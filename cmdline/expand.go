package cmdline

import (
	"strconv"
	"strings"
)

const argumentsWord = "$ARGUMENTS"

// Expand substitutes $ARGUMENTS (all arguments joined by one space), $1…$9, $ARGUMENTS[N]
// (zero-based) and the escape \$ (a literal $). Missing arguments expand to "". It reports whether
// any placeholder was present.
//
// The edge cases, decided once (see the package doc):
//   - $1…$9 take exactly one digit: $10 is $1 followed by "0", and $0 is literal text.
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
	if !strings.ContainsAny(body, "$") {
		return body, false
	}
	var b strings.Builder
	b.Grow(len(body))
	arg := func(i int) string {
		if i >= 0 && i < len(args) {
			return args[i]
		}
		return ""
	}
	for i := 0; i < len(body); {
		c := body[i]
		if c == '\\' && i+1 < len(body) && body[i+1] == '$' {
			b.WriteByte('$')
			i += 2
			continue
		}
		if c != '$' {
			b.WriteByte(c)
			i++
			continue
		}
		rest := body[i:]
		switch {
		case strings.HasPrefix(rest, argumentsWord):
			used = true
			n := len(argumentsWord)
			if idx, width, ok := bracketIndex(rest[n:]); ok {
				b.WriteString(arg(idx))
				i += n + width
				continue
			}
			b.WriteString(strings.Join(args, " "))
			i += n
		case len(rest) >= 2 && rest[1] >= '1' && rest[1] <= '9':
			used = true
			b.WriteString(arg(int(rest[1] - '1')))
			i += 2
		default:
			b.WriteByte('$')
			i++
		}
	}
	return b.String(), used
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

// ExpandSkill expands a skill body: Expand, and when the body has no placeholder and args is
// non-empty, appends "\n\nUser arguments: " + strings.Join(args, " ") (RFC-0051
// SkillManagerCap.get_command).
func ExpandSkill(body string, args []string) string {
	out, used := Expand(body, args)
	if used || len(args) == 0 {
		return out
	}
	return out + "\n\nUser arguments: " + strings.Join(args, " ")
}

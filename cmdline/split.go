package cmdline

import (
	"errors"
	"fmt"
	"strings"
)

// ErrSyntax reports a command line that cannot be split, such as one with an unterminated quote.
var ErrSyntax = errors.New("command line syntax error")

// Split splits a command line shell-style: whitespace separates; '…' and "…" group; backslash
// escapes outside single quotes. An unterminated quote is an error naming the byte offset.
//
// Precisely (see the package doc for why):
//   - Separators are the ASCII spaces " \t\n\r\v\f"; other Unicode spaces belong to words.
//   - Outside quotes a backslash takes the next byte literally (`a\ b` is one field "a b");
//     a backslash ending the line is kept as a literal backslash.
//   - Inside '…' every byte is literal, backslashes included.
//   - Inside "…" a backslash escapes only `"` and `\`; before anything else it is literal, so
//     "C:\path" keeps its backslash.
//   - Quoted and unquoted parts adjoining without space form one field (a'b c'd is "ab cd");
//     an empty pair of single or double quotes produces an empty field.
//
// The error wraps ErrSyntax.
func Split(line string) ([]string, error) {
	var (
		fields []string
		cur    strings.Builder
		inWord bool // cur holds a field, possibly empty ('' counts)
	)
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case isSpace(c):
			if inWord {
				fields = append(fields, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\\':
			inWord = true
			if i+1 < len(line) {
				i++
				cur.WriteByte(line[i])
			} else {
				cur.WriteByte('\\')
			}
		case c == '\'':
			inWord = true
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("%w: unterminated single quote at byte offset %d", ErrSyntax, i)
			}
			cur.WriteString(line[i+1 : i+1+end])
			i += end + 1
		case c == '"':
			inWord = true
			start := i
			closed := false
			for i++; i < len(line); i++ {
				d := line[i]
				if d == '"' {
					closed = true
					break
				}
				if d == '\\' && i+1 < len(line) && (line[i+1] == '"' || line[i+1] == '\\') {
					i++
					d = line[i]
				}
				cur.WriteByte(d)
			}
			if !closed {
				return nil, fmt.Errorf("%w: unterminated double quote at byte offset %d", ErrSyntax, start)
			}
		default:
			inWord = true
			cur.WriteByte(c)
		}
	}
	if inWord {
		fields = append(fields, cur.String())
	}
	return fields, nil
}

func isSpace(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\v', '\f':
		return true
	}
	return false
}

// Quote returns s quoted so that Split reads it back as exactly one field equal to s. Words made
// only of characters Split treats as ordinary are returned unchanged.
func Quote(s string) string {
	if s == "" {
		return "''"
	}
	if !strings.ContainsAny(s, " \t\n\r\v\f'\"\\") {
		return s
	}
	// Single quotes keep everything literal; a single quote itself is closed, escaped, reopened.
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Join quotes each argument with Quote and joins them with one space: the inverse of Split.
func Join(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = Quote(a)
	}
	return strings.Join(q, " ")
}

// ParseLine parses "/name arg…" into the command name and its arguments (Split) and the raw
// argument text.
//
// Leading and trailing whitespace of the line is ignored. The line must start with "/" followed
// by a non-empty name; the name ends at the first whitespace. raw is the rest of the line with
// surrounding whitespace removed, exactly as typed (quotes kept). Errors wrap ErrSyntax.
func ParseLine(line string) (name string, args []string, raw string, err error) {
	s := strings.TrimLeft(line, " \t\n\r\v\f")
	if !strings.HasPrefix(s, "/") {
		return "", nil, "", fmt.Errorf("%w: command line %q does not start with \"/\"", ErrSyntax, line)
	}
	s = s[1:]
	end := strings.IndexAny(s, " \t\n\r\v\f")
	if end < 0 {
		end = len(s)
	}
	name = s[:end]
	if name == "" {
		return "", nil, "", fmt.Errorf("%w: command line %q has no command name after \"/\"", ErrSyntax, line)
	}
	raw = strings.Trim(s[end:], " \t\n\r\v\f")
	args, err = Split(raw)
	if err != nil {
		return "", nil, "", fmt.Errorf("command /%s: %w", name, err)
	}
	return name, args, raw, nil
}

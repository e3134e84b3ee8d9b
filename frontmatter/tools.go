package frontmatter

import (
	"fmt"
	"strings"
)

// AllowedTools reads an allowed-tools value as Parse decodes it, the one way skills and command
// files read it (see the package doc):
//
//   - nil (the key without a value) gives no tools;
//   - a string, and any other scalar by its text, is split on whitespace and commas outside
//     parentheses: "Bash(git diff:*) Read" gives "Bash(git diff:*)" and "Read";
//   - a list gives its entries, trimmed, scalars by their text; an empty entry is dropped, and
//     an entry that is itself a list or a mapping is dropped and reported in err;
//   - a mapping gives no tools and an error.
//
// The tools read are returned even when err is not nil; err only says what was left out, for a
// warning. The result is never nil for a string (an empty string allows no tool).
func AllowedTools(v any) (tools []string, err error) {
	switch t := v.(type) {
	case nil:
		return nil, nil
	case string:
		return splitTools(t), nil
	case []any:
		var skipped []string
		for i, x := range t {
			s, ok := scalarText(x)
			if !ok {
				skipped = append(skipped, fmt.Sprintf("entry %d is %s", i+1, kind(x)))
				continue
			}
			if s = strings.TrimSpace(s); s != "" {
				tools = append(tools, s)
			}
		}
		if len(skipped) > 0 {
			err = fmt.Errorf("allowed-tools %s, not a tool name; ignored", strings.Join(skipped, ", "))
		}
		return tools, err
	}
	if s, ok := scalarText(v); ok {
		return splitTools(s), nil
	}
	return nil, fmt.Errorf("allowed-tools is %s, not a string or a list; ignored", kind(v))
}

// splitTools splits an allowed-tools string on whitespace and commas outside parentheses, so
// "Bash(git diff:*) Read, Write" gives "Bash(git diff:*)", "Read" and "Write".
func splitTools(s string) []string {
	out := []string{}
	depth, start := 0, -1
	for i, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')':
			if depth > 0 {
				depth--
			}
		case depth == 0 && (r == ' ' || r == ',' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f'):
			if start >= 0 {
				out = append(out, s[start:i])
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

// scalarText returns the text of a decoded YAML scalar; ok is false for a list or a mapping.
func scalarText(v any) (string, bool) {
	switch t := v.(type) {
	case nil:
		return "", true
	case string:
		return t, true
	case []any, map[string]any, map[any]any:
		return "", false
	}
	return fmt.Sprint(v), true
}

// kind names the YAML kind of a list or mapping for messages.
func kind(v any) string {
	switch v.(type) {
	case []any:
		return "a list"
	case map[string]any, map[any]any:
		return "a mapping"
	}
	return fmt.Sprintf("a %T", v)
}

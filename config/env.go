package config

import (
	"fmt"
	"strings"
)

// expandEnv replaces ${VAR} and ${VAR:-default} in s. $$ is a literal $. A bare $ not followed
// by { or $ is kept as it is, so shell snippets in args survive. A default is expanded in turn
// when it is used, so it may hold ${…} and $$ itself.
func expandEnv(s string, lookup func(string) (string, bool)) (string, error) {
	if !strings.Contains(s, "$") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '$' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i++
		case '{':
			end := closingBrace(s[i+2:])
			if end < 0 {
				return "", fmt.Errorf("unclosed ${ at offset %d", i)
			}
			expr := s[i+2 : i+2+end]
			name, def, hasDef := strings.Cut(expr, ":-")
			if !validEnvName(name) {
				return "", fmt.Errorf("invalid variable name %q", name)
			}
			v, ok := lookup(name)
			switch {
			case ok && (v != "" || !hasDef):
				b.WriteString(v)
			case hasDef:
				// The default is expanded in turn, only when used: ${A:-${B:-x}}, ${A:-$$}.
				d, err := expandEnv(def, lookup)
				if err != nil {
					return "", err
				}
				b.WriteString(d)
			default:
				return "", fmt.Errorf("environment variable %s is not set (use ${%s:-default})", name, name)
			}
			i += 2 + end
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// closingBrace returns the index in s of the } that closes a ${ just before s, skipping the
// ${…} pairs a default nests, or -1.
func closingBrace(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '$' && i+1 < len(s) && s[i+1] == '$':
			i++ // $$ is a literal $, even before {
		case s[i] == '$' && i+1 < len(s) && s[i+1] == '{':
			depth++
			i++
		case s[i] == '}':
			if depth == 0 {
				return i
			}
			depth--
		}
	}
	return -1
}

func validEnvName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

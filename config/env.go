package config

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/agentpool/agentpool/decl"
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

// ExpandServer returns s with ${VAR}, ${VAR:-default} and $$ expanded as in a config file, in
// the values the config expands (the fields tagged config:"expand": command, args, env and
// header values, cwd, url, the auth's client id, secret, key file and metadata URL), with
// lookup giving the variables' values; key ("mcp-servers.x") prefixes each problem's key. An
// unset variable without a default is an error naming it. s is not changed: its lists and
// maps are copied. A host uses it for declarations the config does not read, a skill's own.
func ExpandServer(s decl.Server, key string, lookup func(string) (string, bool)) (decl.Server, error) {
	var errs []error
	v := reflect.ValueOf(&s).Elem()
	expandFields(v, key, lookup, &errs)
	return s, errors.Join(errs...)
}

// expandFields expands, in place, the fields of struct v tagged config:"expand", and those of
// the structs its pointer fields hold (a copy of each: v's own values are not shared).
func expandFields(v reflect.Value, key string, lookup func(string) (string, bool), errs *[]error) {
	t := v.Type()
	for i := range t.NumField() {
		f, fv := t.Field(i), v.Field(i)
		at := joinKey(key, yamlName(f))
		one := func(s string, at string) string {
			out, err := expandEnv(s, lookup)
			if err != nil {
				*errs = append(*errs, keyErrorf(at, "%v", err))
				return s
			}
			return out
		}
		switch {
		case f.Type.Kind() == reflect.Pointer && f.Type.Elem().Kind() == reflect.Struct && !fv.IsNil():
			c := reflect.New(f.Type.Elem())
			c.Elem().Set(fv.Elem())
			expandFields(c.Elem(), at, lookup, errs)
			fv.Set(c)
		case !tagsOf(f).expand:
		case f.Type.Kind() == reflect.String:
			fv.SetString(one(fv.String(), at))
		case f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.String && !fv.IsNil():
			c := reflect.MakeSlice(f.Type, fv.Len(), fv.Len())
			for j := range fv.Len() {
				c.Index(j).SetString(one(fv.Index(j).String(), fmt.Sprintf("%s[%d]", at, j)))
			}
			fv.Set(c)
		case f.Type.Kind() == reflect.Map && f.Type.Elem().Kind() == reflect.String && !fv.IsNil():
			c := reflect.MakeMapWithSize(f.Type, fv.Len())
			for _, k := range fv.MapKeys() {
				c.SetMapIndex(k, reflect.ValueOf(one(fv.MapIndex(k).String(), at+"."+k.String())).Convert(f.Type.Elem()))
			}
			fv.Set(c)
		}
	}
}

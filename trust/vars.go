package trust

import (
	"reflect"
	"regexp"
	"slices"
	"strings"
)

// varRef matches a ${VAR} or ${VAR:-default} reference, capturing the name, after a "$$"
// (a literal "$") has been taken out.
var varRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)`)

// Vars returns the names of the variables of the user's environment that d's declaration
// refers to (${VAR} in any field that is expanded: command, args, env and header values, URL,
// cwd, auth), sorted, each once: what trusting it lets it read. A default's references count.
func (d Decl) Vars() []string {
	var names []string
	collectVars(reflect.ValueOf(d.Server), &names)
	slices.Sort(names)
	return slices.Compact(names)
}

// collectVars adds to names the references in the fields of struct v tagged config:"expand",
// and in any struct it points to.
func collectVars(v reflect.Value, names *[]string) {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return
	}
	add := func(s string) {
		for _, m := range varRef.FindAllStringSubmatch(strings.ReplaceAll(s, "$$", ""), -1) {
			*names = append(*names, m[1])
		}
	}
	for i := range v.NumField() {
		f, field := v.Type().Field(i), v.Field(i)
		if !f.IsExported() {
			continue
		}
		if !slices.Contains(strings.Split(f.Tag.Get("config"), ","), "expand") {
			collectVars(field, names)
			continue
		}
		switch field.Kind() {
		case reflect.String:
			add(field.String())
		case reflect.Slice:
			for j := range field.Len() {
				if e := field.Index(j); e.Kind() == reflect.String {
					add(e.String())
				}
			}
		case reflect.Map:
			for it := field.MapRange(); it.Next(); {
				if it.Value().Kind() == reflect.String {
					add(it.Value().String())
				}
			}
		}
	}
}

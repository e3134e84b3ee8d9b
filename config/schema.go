package config

import (
	"encoding/json"
	"path"
	"reflect"
	"strings"

	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/exposure"

	"github.com/google/jsonschema-go/jsonschema"
)

// durationPattern is what a duration field holds: a Go duration with a unit ("500ms", "1m30s").
const durationPattern = `^[-+]?(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$`

// Schema returns a JSON Schema (draft 2020-12) of the config file, for an editor's completion
// and checking. It is reflected from Config and the structs its sections decode into, by their
// yaml tags, so a key a kind adds is in it without editing anything here; as in the loader,
// every key is optional and an unknown key is refused (additionalProperties: false), a
// duration is a string with a unit, an integer a whole number. What only validation checks
// (a server needs a command or a url; a type's values) is not in it: `agentpool config check`
// says that.
func Schema() *jsonschema.Schema {
	r := &reflector{defs: map[string]*jsonschema.Schema{}}
	root := r.schema(reflect.TypeFor[Config]())
	s := &jsonschema.Schema{
		Schema: "https://json-schema.org/draft/2020-12/schema",
		Ref:    root.Ref,
		Defs:   r.defs,
		Title:  "agentpool configuration (agentpool.yaml)",
	}
	// The values of a server's few enumerated keys, for completion (validation says the same).
	enum := func(def, key string, values ...any) {
		if d, ok := s.Defs[def]; ok {
			if p, ok := d.Properties[key]; ok {
				p.Enum = values
			}
		}
	}
	enum("decl.Server", "type", decl.TypeStdio, decl.TypeStreamableHTTP, decl.TypeSSE)
	enum("decl.Server", "scope", decl.ScopePool, decl.ScopeSession)
	enum("decl.Retry", "calls", decl.CallsSafe, decl.CallsAlways, decl.CallsNever)
	enum("decl.Server", "hidden_text", decl.HiddenTextSanitize, decl.HiddenTextBlock)
	enum("config.Extensions", "hidden_text", decl.HiddenTextSanitize, decl.HiddenTextBlock)
	// A key with no value ("mcp_servers:" with its entries commented out, "timeout:") is the
	// zero value to the loader: every key's value, and every entry of a map by name, may be
	// null.
	for _, d := range s.Defs {
		for key, p := range d.Properties {
			d.Properties[key] = orNull(p)
		}
		if a := d.AdditionalProperties; a != nil && (a.Ref != "" || a.Type != "") {
			d.AdditionalProperties = orNull(a)
		}
	}
	return s
}

// orNull is v, or null; v's description stays on top, for an editor's hover.
func orNull(v *jsonschema.Schema) *jsonschema.Schema {
	return &jsonschema.Schema{Description: v.Description, AnyOf: []*jsonschema.Schema{v, {Type: "null"}}}
}

// SchemaJSON is Schema as indented JSON.
func SchemaJSON() ([]byte, error) {
	return json.MarshalIndent(Schema(), "", "  ")
}

// reflector builds the schema of a Go type as the loader reads it: a struct by its fields'
// yaml tags, closed to other keys; a named struct or map once, in defs under its package and
// name ("decl.Server": skill.Config, command.Config and Config are three structs).
type reflector struct {
	defs map[string]*jsonschema.Schema
}

// Types with a form of their own besides the mapping.
var (
	networkType = reflect.TypeFor[decl.Network]()
	sandboxType = reflect.TypeFor[decl.Sandbox]()
	permitType  = reflect.TypeFor[decl.Permission]()
	toolsType   = reflect.TypeFor[exposure.Config]()
)

func (r *reflector) schema(t reflect.Type) *jsonschema.Schema {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == durationType {
		return &jsonschema.Schema{Type: "string", Pattern: durationPattern}
	}
	if t == networkType { // none, all or a list of host:port (decl.Network's own form)
		return &jsonschema.Schema{AnyOf: []*jsonschema.Schema{
			{Type: "string", Enum: []any{decl.NetworkNone, decl.NetworkAll}},
			{Type: "array", Items: &jsonschema.Schema{Type: "string"}}}}
	}
	if t == sandboxType && r.defs["decl.Sandbox"] == nil { // a mapping, or off
		r.defs["decl.Sandbox"] = &jsonschema.Schema{AnyOf: []*jsonschema.Schema{
			r.define(t), {Type: "string", Enum: []any{"off"}}}}
	}
	if t == permitType && r.defs["decl.Permission"] == nil { // a mapping, or ask, allow, deny
		r.defs["decl.Permission"] = &jsonschema.Schema{AnyOf: []*jsonschema.Schema{
			r.define(t), {Type: "string", Enum: []any{decl.PermissionAsk, decl.PermissionAllow, decl.PermissionDeny}}}}
	}
	if t == toolsType && r.defs["exposure.Config"] == nil { // a mapping, or the mode alone
		r.defs["exposure.Config"] = &jsonschema.Schema{AnyOf: []*jsonschema.Schema{
			r.define(t), {Type: "string", Enum: []any{string(exposure.ModeAll), string(exposure.ModeSearch), string(exposure.ModeAuto)}}}}
	}
	switch t.Kind() {
	case reflect.String:
		return &jsonschema.Schema{Type: "string"}
	case reflect.Bool:
		return &jsonschema.Schema{Type: "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return &jsonschema.Schema{Type: "integer"}
	case reflect.Float32, reflect.Float64:
		return &jsonschema.Schema{Type: "number"}
	case reflect.Slice, reflect.Array:
		return &jsonschema.Schema{Type: "array", Items: r.schema(t.Elem())}
	case reflect.Map, reflect.Struct:
		if t.Name() == "" {
			return r.define(t)
		}
		name := path.Base(t.PkgPath()) + "." + t.Name()
		if _, ok := r.defs[name]; !ok {
			r.defs[name] = nil // a type that refers to itself finds its name taken
			r.defs[name] = r.define(t)
		}
		return &jsonschema.Schema{Ref: "#/$defs/" + name}
	}
	return &jsonschema.Schema{} // any value
}

// define is the schema of a map or struct type itself.
func (r *reflector) define(t reflect.Type) *jsonschema.Schema {
	if t.Kind() == reflect.Map {
		s := &jsonschema.Schema{Type: "object"}
		if v := r.schema(t.Elem()); v.Type != "" || v.Ref != "" {
			s.AdditionalProperties = v
		}
		return s
	}
	s := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}} // false
	r.fields(t, s)
	return s
}

// fields adds the properties of struct t's fields to s, in their order; an inline or embedded
// struct's fields are t's own.
func (r *reflector) fields(t reflect.Type, s *jsonschema.Schema) {
	for f := range t.Fields() {
		tag := f.Tag.Get("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		if (f.Anonymous && name == "") || strings.Contains(","+opts+",", ",inline,") {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				r.fields(ft, s)
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		s.Properties[name] = r.schema(f.Type)
		s.PropertyOrder = append(s.PropertyOrder, name)
	}
}

package config

import (
	"encoding/json"
	"path"
	"reflect"

	"github.com/agentpool/agentpool/decl"
	"github.com/invopop/jsonschema"
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
	r := &jsonschema.Reflector{
		FieldNameTag:               "yaml",
		RequiredFromJSONSchemaTags: true, // no key is required
		Anonymous:                  true,
		// By package and name: skill.Config, command.Config and Config are three structs.
		Namer: func(t reflect.Type) string {
			if t.PkgPath() == "" {
				return t.Name() // a built-in or unnamed type: "" inlines it
			}
			return path.Base(t.PkgPath()) + "." + t.Name()
		},
		Mapper: func(t reflect.Type) *jsonschema.Schema {
			if t == durationType {
				return &jsonschema.Schema{Type: "string", Pattern: durationPattern,
					Description: "a duration with a unit: 500ms, 30s, 5m, 1h"}
			}
			return nil
		},
	}
	s := r.Reflect(&Config{})
	s.Title = "agentpool configuration (agentpool.yaml)"
	// The values of a server's few enumerated keys, for completion (validation says the same).
	enum := func(def, key string, values ...any) {
		if d, ok := s.Definitions[def]; ok && d.Properties != nil {
			if p, ok := d.Properties.Get(key); ok {
				p.Enum = values
			}
		}
	}
	enum("decl.Server", "type", decl.TypeStdio, decl.TypeStreamableHTTP, decl.TypeSSE)
	enum("decl.Server", "scope", decl.ScopePool, decl.ScopeSession)
	enum("decl.Retry", "calls", decl.CallsSafe, decl.CallsAlways, decl.CallsNever)
	// A key with no value ("mcp_servers:" with its entries commented out, "timeout:") is the
	// zero value to the loader: every key's value, and every entry of a map by name, may be
	// null.
	for _, d := range s.Definitions {
		if d.Properties != nil {
			for pair := d.Properties.Oldest(); pair != nil; pair = pair.Next() {
				d.Properties.Set(pair.Key, orNull(pair.Value))
			}
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

package toolsearch

import (
	"encoding/json"
	"sort"
)

// Kind says what a Doc describes.
type Kind uint8

const (
	// KindTool is a tool of an MCP server.
	KindTool Kind = iota
	// KindSkill is an Agent Skill (loaded through load_skill); its Server is "".
	KindSkill
)

// String returns "tool" or "skill".
func (k Kind) String() string {
	switch k {
	case KindTool:
		return "tool"
	case KindSkill:
		return "skill"
	}
	return "unknown"
}

// Doc is what the index knows of one tool or skill.
type Doc struct {
	// Key is unique among one server's docs: a tool's served name, a skill's name. A Hit
	// names its doc by Server and Key.
	Key    string
	Kind   Kind
	Server string // "" for skills
	// Name is the tool's or skill's own name (split into words for matching).
	Name        string
	Title       string
	Description string
	Params      []Param
	// ServerInstructions is the instructions the server sent in its initialize result.
	ServerInstructions string
}

// Param is one parameter of a tool: a property name of its input schema (a nested property
// is "parent.child") and its description.
type Param struct{ Name, Description string }

// schema is the part of a JSON Schema ParamsOf reads.
type schema struct {
	Description string            `json:"description"`
	Properties  map[string]schema `json:"properties"`
	Items       *schema           `json:"items"`
}

// ParamsOf returns the properties of a tool's input schema with their descriptions, in name
// order, followed one level down by the properties of an object-valued property (or of an
// array's items) as "parent.child". A schema that is not a JSON object, or has no properties,
// yields nil; ParamsOf never fails.
func ParamsOf(inputSchema json.RawMessage) []Param {
	var s schema
	if len(inputSchema) == 0 || json.Unmarshal(inputSchema, &s) != nil {
		return nil
	}
	var out []Param
	for _, name := range sortedKeys(s.Properties) {
		p := s.Properties[name]
		out = append(out, Param{Name: name, Description: p.Description})
		nested := p.Properties
		if len(nested) == 0 && p.Items != nil {
			nested = p.Items.Properties
		}
		for _, child := range sortedKeys(nested) {
			out = append(out, Param{Name: name + "." + child, Description: nested[child].Description})
		}
	}
	return out
}

func sortedKeys(m map[string]schema) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

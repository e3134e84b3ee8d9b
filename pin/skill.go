package pin

import (
	"encoding/json"

	"github.com/agentpool/agentpool/ext"
)

// KindSkill is the kind of a skill an MCP server serves (SEP-2640, skill://…/SKILL.md).
const KindSkill = "skill"

// Skill returns the definition of a skill an MCP server serves: its name and description, and
// in Schema its SKILL.md's URI and the SHA-256 (hex) of the SKILL.md as read, so that a
// changed body is drift without the pin file holding the text.
func Skill(name, description, uri, sha256 string) Definition {
	schema, _ := json.Marshal(struct {
		URI    string `json:"uri"`
		SHA256 string `json:"sha256"`
	}{uri, sha256})
	return Definition{Kind: KindSkill, Name: name, Description: description, Schema: schema}.seal()
}

// Skills checks a skills listing as Tools checks tools: each skill's name, description and
// URI, with sha256[i] the SHA-256 (hex) of skills[i]'s SKILL.md as read. It returns, by name,
// why each skill kept out is; the caller serves the others.
func (g *Guard) Skills(skills []ext.SkillEntry, sha256 []string) map[string]error {
	if g.mode == Off {
		return nil
	}
	defs := make([]Definition, len(skills))
	names := make([]string, len(skills))
	for i, s := range skills {
		defs[i], names[i] = Skill(s.Name, s.Description, s.URI, sha256[i]), s.Name
	}
	return g.checkNamed(defs, names, KindSkill)
}

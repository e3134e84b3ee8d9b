package pin

import (
	"encoding/json"
	"slices"

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
	skills, sha256 = slices.Clone(skills), slices.Clone(sha256) // the definitions may be made later
	l := listing{kind: KindSkill, keys: make([]string, len(skills)), raws: make([]string, len(skills)),
		full: func(i int) Definition {
			return Skill(skills[i].Name, skills[i].Description, skills[i].URI, sha256[i])
		}}
	var rd rawDigester
	for i := range skills {
		l.keys[i], l.raws[i] = skills[i].Name, rd.skill(&skills[i], sha256[i])
	}
	return g.checkNamed(&l)
}

// skill returns the raw digest of s's digested fields (those Skill reads), with sha its
// SKILL.md's SHA-256.
func (r *rawDigester) skill(s *ext.SkillEntry, sha string) string {
	r.str(KindSkill)
	r.str(s.Name)
	r.str(s.Description)
	r.str(s.URI)
	r.str(sha)
	return r.sum()
}

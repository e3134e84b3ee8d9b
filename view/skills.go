package view

import (
	"slices"
	"strings"

	"github.com/agentpool/agentpool/ext"
)

// assembleSkills lists every skill once. Two sources offering the same name: the one that
// precedes (origin first, so a local skill always beats a remote one of the same name) keeps
// it; the other is reported as a shadowed skill — never mixed in, never silent.
func (v *View) assembleSkills(members []member) {
	type cand struct {
		m *member
		e ext.SkillEntry
	}
	var all []cand
	for i := range members {
		for _, e := range members[i].skill {
			all = append(all, cand{&members[i], e})
		}
	}
	slices.SortStableFunc(all, func(a, b cand) int { return precedes(a.m, b.m) })
	winner := make(map[string]*member, len(all))
	for _, c := range all {
		if w, ok := winner[c.e.Name]; ok {
			if w != c.m { // a capability listing a skill twice offers it once
				v.Collisions = append(v.Collisions, Collision{Kind: "skill", Name: c.e.Name,
					Winner: claim(w, c.e.Name), Loser: claim(c.m, "")})
			}
			continue
		}
		winner[c.e.Name] = c.m
		v.Skills = append(v.Skills, Skill{SkillEntry: c.e, Capability: c.m.reg.Capability.Name(), Source: c.m.reg.Origin})
	}
	slices.SortFunc(v.Skills, func(a, b Skill) int { return strings.Compare(a.Name, b.Name) })
	if v.Skills == nil {
		v.Skills = []Skill{}
	}
}

// assembleResources lists the visible skills' SKILL.md files, then every upstream resource
// and template, each URI once (the first, in skill then Visible order). A skill:// resource
// inside a skill that another capability won is left out: a skill's files all come from the
// one source that won its name.
func (v *View) assembleResources(members []member) {
	owner := make(map[string]string, len(v.Skills)) // skill root "skill://<path>/" → capability
	for _, s := range v.Skills {
		if root, ok := strings.CutSuffix(s.URI, "SKILL.md"); ok {
			owner[root] = s.Capability
		}
	}
	foreign := func(uri, capability string) bool {
		if !strings.HasPrefix(uri, "skill://") {
			return false
		}
		for root, c := range owner {
			if strings.HasPrefix(uri, root) && c != capability {
				return true
			}
		}
		return false
	}
	seen := make(map[string]bool)
	for _, s := range v.Skills {
		if seen[s.URI] {
			continue
		}
		seen[s.URI] = true
		v.Resources = append(v.Resources, Resource{
			ResourceEntry: ext.ResourceEntry{URI: s.URI, Name: s.Name, Description: s.Description, MIMEType: s.MIMEType},
			Capability:    s.Capability, Origin: s.Source})
	}
	tseen := make(map[string]bool)
	for i := range members {
		m := &members[i]
		for _, r := range m.res {
			if seen[r.URI] || foreign(r.URI, m.reg.Capability.Name()) {
				continue
			}
			seen[r.URI] = true
			v.Resources = append(v.Resources, Resource{ResourceEntry: r, Capability: m.reg.Capability.Name(), Origin: m.reg.Origin})
		}
		for _, t := range m.tmpl {
			if tseen[t.URITemplate] {
				continue
			}
			tseen[t.URITemplate] = true
			v.Templates = append(v.Templates, Template{ResourceTemplateEntry: t, Capability: m.reg.Capability.Name(), Origin: m.reg.Origin})
		}
	}
	if v.Resources == nil {
		v.Resources = []Resource{}
	}
	if v.Templates == nil {
		v.Templates = []Template{}
	}
}

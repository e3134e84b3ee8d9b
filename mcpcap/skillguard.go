package mcpcap

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"
	"strings"

	"github.com/agentpool/agentpool/ext"
)

// SkillGuard is a Guard that checks the server's skills too (SEP-2640 skills/list entries and
// skill://…/SKILL.md resources; package pin's Guard is one). Skills returns, by name, why each
// skill kept out is; sha256[i] is the SHA-256 (hex) of skills[i]'s SKILL.md as the Cap read
// it, "" when it could not be read. What it keeps out is in no listing of the Cap (skills,
// resources) and none of its files can be read; BlockedResource gives the reason.
type SkillGuard interface {
	Skills(skills []ext.SkillEntry, sha256 []string) map[string]error
}

// blockedSkill is a skill the Cap's Guard keeps out: its root ("skill://<path>/") and why.
type blockedSkill struct {
	root string
	err  error
}

// guardSkills reads each skill's SKILL.md of sc, has the Cap's SkillGuard check the listing,
// and takes the skills it keeps out, and their files, out of sc.
func (c *Cap) guardSkills(ctx context.Context, sc *skillCache) {
	sg, ok := c.guard.(SkillGuard)
	if !ok {
		return
	}
	sums := make([]string, len(sc.entries))
	for i, e := range sc.entries {
		cs, err := c.read(ctx, e.URI)
		if err != nil {
			c.log.Warn("skill pinned without its SKILL.md: it could not be read", "skill", e.Name, "uri", e.URI, "err", err)
			continue
		}
		h := sha256.New()
		for _, x := range cs {
			h.Write([]byte(x.Text))
			h.Write(x.Blob)
		}
		sums[i] = hex.EncodeToString(h.Sum(nil))
	}
	blocked := sg.Skills(sc.entries, sums)
	var kept []blockedSkill
	for _, e := range sc.entries {
		if err := blocked[e.Name]; err != nil {
			kept = append(kept, blockedSkill{root: strings.TrimSuffix(e.URI, "SKILL.md"), err: err})
		}
	}
	c.blockedSkills.Store(&kept)
	if len(kept) == 0 {
		return
	}
	sc.entries = slices.DeleteFunc(sc.entries, func(e ext.SkillEntry) bool { return blocked[e.Name] != nil })
	under := func(uri string) bool {
		return slices.ContainsFunc(kept, func(b blockedSkill) bool { return strings.HasPrefix(uri, b.root) })
	}
	maps.DeleteFunc(sc.files, func(uri string, _ bool) bool { return under(uri) })
	sc.roots = slices.DeleteFunc(sc.roots, under)
}

// blockedSkill returns why uri (the server's own URI), a file of a skill the Cap's Guard kept
// out of the last skills listing, cannot be read; nil otherwise.
func (c *Cap) blockedSkill(uri string) error {
	b := c.blockedSkills.Load()
	if b == nil || !strings.HasPrefix(uri, "skill://") {
		return nil
	}
	for _, s := range *b {
		if strings.HasPrefix(uri, s.root) {
			return s.err
		}
	}
	return nil
}

// withoutBlockedSkills returns rc's resources without the files of the skills the Cap's
// SkillGuard keeps out, listing the skills first when they were not listed on this connection.
func (c *Cap) withoutBlockedSkills(ctx context.Context, entries []ext.ResourceEntry) ([]ext.ResourceEntry, error) {
	if _, ok := c.guard.(SkillGuard); !ok {
		return entries, nil
	}
	if _, err := c.skills(ctx); err != nil {
		return nil, err
	}
	if b := c.blockedSkills.Load(); b == nil || len(*b) == 0 {
		return entries, nil
	}
	return slices.DeleteFunc(slices.Clone(entries), func(e ext.ResourceEntry) bool { return c.blockedSkill(e.URI) != nil }), nil
}

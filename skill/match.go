package skill

import (
	"strings"

	"github.com/agentpool/agentpool/ext"
)

// MatchByName is a Matcher that selects the skills a prompt names: a skill whose name appears
// in the prompt as a whole word ("use the pdf skill", "/pdf report.pdf"), case-insensitively.
// A word is a run of letters, digits, hyphens and inner colons, so "pdf-tools" does not select
// "pdf", "/a:configure" selects the namespaced skill a:configure and not the bare configure, and
// "pdf:" is "pdf"; "/skill:<name>", a skill's qualified command name, selects <name> too. It is
// predictable and cheap; a host that wants semantic matching injects its own Matcher.
func MatchByName(prompt string, skills []ext.SkillEntry) []string {
	words := make(map[string]bool)
	for _, w := range strings.FieldsFunc(strings.ToLower(prompt), func(r rune) bool {
		return !(r == '-' || r == ':' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		w = strings.Trim(w, ":")
		words[w] = true
		if name, ok := strings.CutPrefix(w, commandPrefix); ok {
			words[name] = true // "/skill:pdf", the skill's qualified command name
		}
	}
	var out []string
	for _, s := range skills {
		if words[strings.ToLower(s.Name)] {
			out = append(out, s.Name)
		}
	}
	return out
}

package skill

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/hiddentext"
)

// DefaultCatalogueBudget is the budget of the skill catalogue, in characters, when the config's
// skills.catalogue_budget is not set (Config.Budget): about 2,000 tokens, some 25 skills of
// a typical description's length.
const DefaultCatalogueBudget = 8000

// catalogueIntro tells the model what the catalogue is and how to use it.
const catalogueIntro = "The following skills provide specialized instructions for specific tasks. " +
	"When a task matches a skill's description, call the load_skill tool with the skill's name to load " +
	"its full instructions before proceeding."

const (
	catalogueOpen  = "\n\n<available-skills>\n"
	catalogueClose = "</available-skills>"
)

// catalogue renders the <available-skills> block of the skills the model may use within budget
// characters (0: no limit), and reports what it listed and left out. rank gives a skill's
// precedence (lower first).
//
// The skills listed are the longest run, in order of precedence then name, whose block and
// closing line fit; they are rendered sorted by name, so a catalogue that cuts nothing is the
// catalogue without a budget. A catalogue that cuts ends with one line counting the skills left
// out and saying how to reach them; when not even one skill fits, that line is the whole
// catalogue (so a budget smaller than the line gives the line alone).
func catalogue(skills []*Skill, budget int, rank func(*Skill) int) (string, *ext.Catalogue) {
	var model []*Skill
	entries := map[*Skill]string{}
	for _, s := range skills {
		if s.DisableModelInvocation {
			continue
		}
		model = append(model, s)
		entries[s] = catalogueEntry(s)
	}
	if len(model) == 0 {
		return "", nil
	}
	fixed := utf8.RuneCountInString(catalogueIntro + catalogueOpen + catalogueClose)
	size := fixed
	for _, s := range model {
		size += utf8.RuneCountInString(entries[s])
	}
	listed := model
	if budget > 0 && size > budget {
		order := slices.Clone(model)
		slices.SortStableFunc(order, func(a, b *Skill) int {
			return cmp.Or(cmp.Compare(rank(a), rank(b)), strings.Compare(a.Name, b.Name))
		})
		size = fixed
		k := 0
		for k < len(order) {
			next := size + utf8.RuneCountInString(entries[order[k]])
			if next+utf8.RuneCountInString("\n"+catalogueMore(len(order)-k-1)) > budget {
				break
			}
			size, k = next, k+1
		}
		keep := map[*Skill]bool{}
		for _, s := range order[:k] {
			keep[s] = true
		}
		listed = slices.DeleteFunc(slices.Clone(model), func(s *Skill) bool { return !keep[s] })
		cut := make([]string, 0, len(order)-k)
		for _, s := range order[k:] {
			cut = append(cut, s.Name)
		}
		var text string
		if k == 0 {
			text = catalogueNone(len(order))
		} else {
			text = render(listed, entries) + "\n" + catalogueMore(len(cut))
		}
		return text, &ext.Catalogue{Budget: budget, Chars: utf8.RuneCountInString(text), Bytes: len(text),
			Listed: k, Cut: cut}
	}
	text := render(listed, entries)
	return text, &ext.Catalogue{Budget: budget, Chars: size, Bytes: len(text), Listed: len(listed), Cut: []string{}}
}

// render writes the catalogue block of skills, in their order, from their entries.
func render(skills []*Skill, entries map[*Skill]string) string {
	var b strings.Builder
	b.WriteString(catalogueIntro)
	b.WriteString(catalogueOpen)
	for _, s := range skills {
		b.WriteString(entries[s])
	}
	b.WriteString(catalogueClose)
	return b.String()
}

// catalogueEntry renders one <skill> element: its name and its description, hidden text
// removed, XML-escaped.
func catalogueEntry(s *Skill) string {
	// Hidden text goes before escaping: an escaped HTML comment is no longer one to find.
	desc, _ := hiddentext.Sanitize(s.Description)
	return "  <skill>\n    <name>" + xmlEscape(s.Name) + "</name>\n    <description>" + xmlEscape(desc) +
		"</description>\n  </skill>\n"
}

// catalogueReach says how a skill the catalogue does not list is reached. It holds for every
// client: load_skill and the skill:// resources are always served, a tool search only in some
// modes, which the text says. A load_skill error names close names and at most
// maxListedSkills skills (loadSkill), and a namespaced skill's URI is not skill://<name>/
// (state.byURI), which the text says too.
var catalogueReach = "load one by name with the load_skill tool (a name it does not know is answered with " +
	"close names and the first " + strconv.Itoa(maxListedSkills) + " skill names), or find it among the resources as " +
	"skill://<name>/SKILL.md (a name <plugin>:<skill> as skill://<plugin>/<skill>/SKILL.md); a tool search, " +
	"where one is offered, finds skills too."

// catalogueMore is the line ending a catalogue that left n skills out.
func catalogueMore(n int) string {
	if n == 1 {
		return "1 more skill is not listed here: " + catalogueReach
	}
	return fmt.Sprintf("%d more skills are not listed here: ", n) + catalogueReach
}

// catalogueNone is the whole catalogue when the budget holds none of the n skills.
func catalogueNone(n int) string {
	if n == 1 {
		return "1 skill provides specialized instructions for specific tasks but is not listed here: " + catalogueReach
	}
	return fmt.Sprintf("%d skills provide specialized instructions for specific tasks but are not listed here: ", n) + catalogueReach
}

// rank returns the precedence of s's root among the manager's roots (lower first); a skill of
// no known root comes last.
func (m *Manager) rank(s *Skill) int {
	if i := slices.Index(m.roots, s.Root); i >= 0 {
		return i
	}
	return len(m.roots)
}

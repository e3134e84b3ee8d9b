package skill

import (
	"slices"
	"testing"

	"github.com/agentpool/agentpool/ext"
)

func TestMatchByName(t *testing.T) {
	skills := []ext.SkillEntry{{Name: "pdf"}, {Name: "code-review"}, {Name: "xlsx"}}
	for prompt, want := range map[string][]string{
		"Please use the PDF skill on report.pdf": {"pdf"},
		"/code-review main.go":                   {"code-review"},
		"review my code":                         nil,
		"convert pdf-tools output to xlsx":       {"xlsx"},
		"":                                       nil,
	} {
		if got := MatchByName(prompt, skills); !slices.Equal(got, want) {
			t.Errorf("MatchByName(%q) = %v, want %v", prompt, got, want)
		}
	}
}

// TestMatchByNameNamespaced: a namespaced skill is selected by its qualified name, which does
// not select the bare skill of the same name; a colon ending a word is punctuation.
func TestMatchByNameNamespaced(t *testing.T) {
	skills := []ext.SkillEntry{{Name: "a:configure"}, {Name: "configure"}, {Name: "pdf"}}
	for prompt, want := range map[string][]string{
		"/a:configure the build":      {"a:configure"},
		"please configure: the build": {"configure"},
		"pdf: then A:Configure.":      {"a:configure", "pdf"},
		"b:configure":                 nil,
	} {
		if got := MatchByName(prompt, skills); !slices.Equal(got, want) {
			t.Errorf("MatchByName(%q) = %v, want %v", prompt, got, want)
		}
	}
}

// TestMatchByNameSkillCommand: a skill's command is also written qualified, "/skill:<name>"
// (ListCommands' QualifiedName): that names the skill as "/<name>" does, for a bare skill (as
// before colons joined words) and a namespaced one.
func TestMatchByNameSkillCommand(t *testing.T) {
	skills := []ext.SkillEntry{{Name: "a:configure"}, {Name: "configure"}, {Name: "pdf"}}
	for prompt, want := range map[string][]string{
		"/skill:pdf the report":   {"pdf"},
		"/skill:a:configure now":  {"a:configure"},
		"/SKILL:Configure please": {"configure"},
	} {
		if got := MatchByName(prompt, skills); !slices.Equal(got, want) {
			t.Errorf("MatchByName(%q) = %v, want %v", prompt, got, want)
		}
	}
}

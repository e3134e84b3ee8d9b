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

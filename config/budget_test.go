package config

import (
	"strings"
	"testing"

	"github.com/agentpool/agentpool/skill"
)

// skills.catalogue_budget and an agent's own: unset is the default, 0 no limit, and an agent
// without one takes the pool's.
func TestCatalogueBudgetKeys(t *testing.T) {
	cfg, err := Parse("cfg.yaml", []byte("agents:\n  a: {}\n  b:\n    skills: {catalogue_budget: 0}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Skills.Budget(); got != skill.DefaultCatalogueBudget {
		t.Errorf("unset skills.catalogue_budget = %d, want %d", got, skill.DefaultCatalogueBudget)
	}
	if got := cfg.CatalogueBudget("a"); got != skill.DefaultCatalogueBudget {
		t.Errorf("agent a's budget = %d, want the pool's", got)
	}
	if got := cfg.CatalogueBudget("b"); got != 0 {
		t.Errorf("agent b's budget = %d, want 0 (no limit)", got)
	}
	cfg, err = Parse("cfg.yaml", []byte("skills: {catalogue_budget: 3000}\nagents:\n  a: {}\n  b:\n    skills: {catalogue_budget: 12000}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Skills.Budget() != 3000 || cfg.CatalogueBudget("") != 3000 || cfg.CatalogueBudget("a") != 3000 || cfg.CatalogueBudget("b") != 12000 {
		t.Errorf("budgets: pool %d, a %d, b %d; want 3000, 3000, 12000", cfg.Skills.Budget(), cfg.CatalogueBudget("a"), cfg.CatalogueBudget("b"))
	}
	for _, tc := range []struct{ data, want string }{
		{"skills:\n  catalogue_budget: -1\n", "cfg.yaml:2:21: skills.catalogue_budget: must not be negative"},
		{"agents:\n  a:\n    skills:\n      catalogue_budget: -5\n", "cfg.yaml:4:25: agents.a.skills.catalogue_budget: must not be negative"},
		{"skills:\n  catalogue_budget: lots\n", "cfg.yaml:2:"},
	} {
		if _, err := Parse("cfg.yaml", []byte(tc.data)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want %q", tc.data, err, tc.want)
		}
	}
}

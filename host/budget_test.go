package host

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/view"
)

// catalogueOf compiles scope's view (through the agent's Include) and returns its skill
// catalogue's report.
func catalogueOf(t *testing.T, h *Host, scope ext.Scope) *ext.Catalogue {
	t.Helper()
	o := &view.Options{}
	if scope.AgentName != "" {
		a, err := h.Agent(scope.AgentName)
		if err != nil {
			t.Fatal(err)
		}
		o.Include = a.Include
	}
	v, err := view.Compile(context.Background(), h.Registry, scope, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Catalogues) != 1 {
		t.Fatalf("%s: catalogues %+v, want one", scope, v.Catalogues)
	}
	return &v.Catalogues[0].Catalogue
}

// skills.catalogue_budget bounds the pool's catalogue; an agent's own bounds its view's, with
// skill folders of its own or without; an agent that sets none has the pool's. A reload that
// changes the budget is what the next view has.
func TestCatalogueBudget(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta"} {
		writeSkill(t, filepath.Join(dir, "pool"), n)
	}
	writeSkill(t, filepath.Join(dir, "review"), "review")
	path := filepath.Join(dir, "x.yaml")
	data := `
skills: {dirs: [./pool], catalogue_budget: 600}
agents:
  plain: {}
  unbounded:
    skills: {catalogue_budget: 0}
  reviewer:
    skills: {dirs: [./review], catalogue_budget: 700}
`
	h := buildHost(t, path, data, Options{})
	if c := catalogueOf(t, h, ext.Scope{}); c.Budget != 600 || c.Chars > 600 || len(c.Cut) == 0 {
		t.Errorf("pool: %+v, want within 600 with skills cut", c)
	}
	if c := catalogueOf(t, h, ext.Scope{AgentName: "plain"}); c.Budget != 600 {
		t.Errorf("plain: %+v, want the pool's budget", c)
	}
	if a, _ := h.Agent("plain"); a.Skills != nil {
		t.Error("plain, with no budget nor folders of its own, has its own skill manager")
	}
	if c := catalogueOf(t, h, ext.Scope{AgentName: "unbounded"}); c.Budget != 0 || len(c.Cut) != 0 || c.Listed != 6 {
		t.Errorf("unbounded: %+v, want every skill", c)
	}
	if c := catalogueOf(t, h, ext.Scope{AgentName: "reviewer"}); c.Budget != 700 || c.Chars > 700 || c.Listed+len(c.Cut) != 7 {
		t.Errorf("reviewer: %+v, want within 700 over 7 skills", c)
	}
	cfg, err := config.Parse(path, []byte(`skills: {dirs: [./pool], catalogue_budget: 0}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Reload(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if c := catalogueOf(t, h, ext.Scope{}); c.Budget != 0 || len(c.Cut) != 0 {
		t.Errorf("after the reload: %+v, want no limit", c)
	}
}

// An agent with a catalogue budget of its own and no skill folders has its own skill manager
// in place of the pool's: its sessions have that manager's skills' servers in place of the
// pool's, as an agent with skill folders does.
func TestCatalogueBudgetAgentSkillServers(t *testing.T) {
	dir := t.TempDir()
	writeSkill(t, filepath.Join(dir, "pool"), "common")
	h := buildHost(t, filepath.Join(dir, "x.yaml"), `
skills: {dirs: [./pool]}
agents:
  tight:
    skills: {catalogue_budget: 300}
`, Options{})
	ctx := context.Background()
	if _, err := h.OpenAgentSession(ctx, "s1", "tight"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.CloseSession(ctx, "s1") })
	names := visibleNames(t, h, ext.Scope{SessionID: "s1", AgentName: "tight"})
	if !slices.Contains(names, agentSkills) || !slices.Contains(names, agentSkillServers) {
		t.Errorf("tight's view holds %v: want its own skills and its skills' servers", names)
	}
}

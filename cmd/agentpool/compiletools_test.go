package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/exposure"
	"github.com/agentpool/agentpool/internal/testserver"
)

// compile shows the tool exposure of the path it compiles: the mode, the always-on tools, the
// threshold and, for auto, the mode that applies to the view now; an agent's own tools key
// overrides server.tools field by field.
func TestCompileToolExposure(t *testing.T) {
	t.Parallel()
	bin := testserver.Build(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "agentpool.yaml"), `
skills:
  dirs: [skills]
  watch: false
mcp_servers:
  fault: {command: `+bin+`}
server:
  tools: {mode: auto, auto_tools: 5, always_on: [load_skill, fault__echo]}
agents:
  small:
    tools: {auto_tools: 1000}
`)
	writeFile(t, filepath.Join(dir, "skills", "notes", "SKILL.md"), "---\nname: notes\ndescription: Takes notes.\n---\nWrite notes.\n")
	cfg := filepath.Join(dir, "agentpool.yaml")
	for _, c := range []struct {
		args    []string
		applies exposure.Mode
	}{{nil, exposure.ModeSearch}, {[]string{"--agent", "small"}, exposure.ModeAll}} {
		stdout, stderr, err := runCLI(t, append([]string{"--no-default-roots", "--config", cfg, "compile", "--json"}, c.args...)...)
		if err != nil {
			t.Fatalf("compile %v: %v\n%s", c.args, err, stderr)
		}
		var v struct {
			ToolExposure exposure.Report `json:"tool_exposure"`
		}
		if err := json.Unmarshal([]byte(stdout), &v); err != nil {
			t.Fatal(err)
		}
		r := v.ToolExposure
		if r.Mode != exposure.ModeAuto || r.Applies != c.applies || !slices.Equal(r.AlwaysOn, []string{"fault__echo", "load_skill"}) ||
			r.MaxActive != exposure.DefaultMaxActive || r.AutoBytes != exposure.DefaultAutoBytes || r.Tools < 6 || r.ListingBytes == 0 {
			t.Errorf("compile %v: tool_exposure = %+v", c.args, r)
		}
	}
	stdout, stderr, err := runCLI(t, "--no-default-roots", "--config", cfg, "compile")
	if err != nil {
		t.Fatalf("compile: %v\n%s", err, stderr)
	}
	for _, want := range []string{"## tool exposure\n", "mode: auto\n", "applies: search (auto: ", "search past 5 tools or 80000 bytes", "always on: fault__echo, load_skill"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("compile output lacks %q:\n%s", want, stdout)
		}
	}
}

// One compile --json shows together what the context budget decided for a path: the tool
// exposure's mode and always-on tools, and the skill catalogue's budget and the skills it cut.
func TestCompileJSONShowsContextBudget(t *testing.T) {
	t.Parallel()
	bin := testserver.Build(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "agentpool.yaml")
	writeFile(t, cfg, `
skills:
  watch: false
  catalogue_budget: 3000
mcp_servers:
  fault: {command: `+bin+`}
server:
  tools: {mode: search, always_on: [load_skill, fault__echo]}
`)
	stdout, stderr, err := runCLI(t, "--no-default-roots", "--config", cfg, "--skills-dir", sharedCorpus(t), "compile", "--json")
	if err != nil {
		t.Fatalf("compile --json: %v\n%s", err, stderr)
	}
	var v struct {
		ToolExposure exposure.Report `json:"tool_exposure"`
		Catalogues   []struct {
			Capability string
			Budget     int
			Listed     int
			Cut        []string
		} `json:"catalogues"`
	}
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatalf("compile --json output: %v\n%s", err, stdout)
	}
	if r := v.ToolExposure; r.Mode != exposure.ModeSearch || r.Applies != exposure.ModeSearch || !slices.Equal(r.AlwaysOn, []string{"fault__echo", "load_skill"}) {
		t.Errorf("tool_exposure = %+v, want search with fault__echo and load_skill always on", r)
	}
	if len(v.Catalogues) != 1 || v.Catalogues[0].Capability != "skills" || v.Catalogues[0].Budget != 3000 ||
		v.Catalogues[0].Listed == 0 || len(v.Catalogues[0].Cut) == 0 {
		t.Errorf("catalogues = %+v, want the skills' within 3000 characters, some cut", v.Catalogues)
	}
}

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

package host

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/agentpool/agentpool/mcpcap"
	"github.com/agentpool/agentpool/skill"
)

// TestSkillDeclaredServerEndToEnd: a skill declares its own MCP server (a real faultserver over
// stdio through the pool); its tools appear among the skill manager's tools, filtered by the
// skill's allowed-tools, calls reach the server, and a second skill's broken server leaves the
// rest working.
func TestSkillDeclaredServerEndToEnd(t *testing.T) {
	bin := testserver.Build(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "skills/ops/SKILL.md"), `---
name: ops
description: Operations helpers with their own server.
allowed-tools: [echo, pid]
mcp-servers:
  fault:
    command: `+bin+`
---
Use the ops tools.
`)
	writeFile(t, filepath.Join(dir, "skills/broken/SKILL.md"), `---
name: broken
description: A skill whose server cannot start.
mcp-servers:
  gone:
    command: /nonexistent/server
---
Still readable.
`)
	ctx := context.Background()
	h := buildHost(t, filepath.Join(dir, "agentpool.yaml"), "skills: {dirs: [skills]}\n", Options{})
	ss := openSkills(t, h, "s1")

	tools, err := ss.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ss.Diagnostics() {
		if strings.Contains(d.Message, `MCP server "fault"`) {
			t.Fatalf("the ops server was not attached: %s", d)
		}
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	got := strings.Join(names, ",")
	if !strings.Contains(got, "ops__echo") || !strings.Contains(got, "ops__pid") || strings.Contains(got, "ops__count") {
		t.Fatalf("skill tools = %s; want ops__echo and ops__pid only from the ops server (allowed-tools)", got)
	}
	res, err := ss.CallTool(ctx, &ext.ToolCall{Name: "ops__echo", Arguments: json.RawMessage(`{"text":"via the skill"}`)})
	if err != nil || res.IsError || res.Content[0].Text != "via the skill" {
		t.Fatalf("call = %+v, %v", res, err)
	}
	if st := h.Pool.Stats(); st.Clients != 1 {
		t.Fatalf("pool clients = %d, want the one skill server", st.Clients)
	}
	// The broken skill is still a skill.
	if _, err := h.Registry.ResolveURI(ctx, "skill://broken/SKILL.md", ext.Scope{}); err != nil {
		t.Fatalf("broken skill unreadable: %v", err)
	}
}

// TestSkillServerReplacedIsForgotten: when hot reload replaces a skill's MCP server, the old
// child's composition edge leaves the registry with it, instead of every child ever built staying
// for the life of the process; the new child is recorded.
func TestSkillServerReplacedIsForgotten(t *testing.T) {
	bin := testserver.Build(t)
	dir := t.TempDir()
	skillMD := func(server string) string {
		return "---\nname: ops\ndescription: Ops.\nmcp-servers:\n  " + server + ":\n    command: " + bin + "\n---\nBody.\n"
	}
	writeFile(t, filepath.Join(dir, "skills/ops/SKILL.md"), skillMD("first"))
	ctx := context.Background()
	h := buildHost(t, filepath.Join(dir, "agentpool.yaml"), "skills: {dirs: [skills], debounce: 20ms}\n", Options{})
	ss := openSkills(t, h, "s1")

	if _, err := ss.Tools(ctx); err != nil {
		t.Fatal(err)
	}
	old := ss.Children()
	if len(old) != 1 || !h.recordedChild(old[0]) {
		t.Fatalf("children = %v, want one recorded child", old)
	}
	writeFile(t, filepath.Join(dir, "skills/ops/SKILL.md"), skillMD("second"))
	testwait.Within(t, 20*time.Second, "the replaced skill server to be closed", func() bool {
		return old[0].(*skillChild).Status().State == mcpcap.StateClosed
	})
	if h.recordedChild(old[0]) {
		t.Fatal("the replaced child's edge is still in the registry")
	}
	// The new server is attached and recorded.
	if _, err := ss.Tools(ctx); err != nil {
		t.Fatal(err)
	}
	kids := ss.Children()
	if len(kids) != 1 || kids[0] == old[0] || !h.recordedChild(kids[0]) {
		t.Fatalf("children after reload = %v", kids)
	}
}

// TestSkillServerTimeoutIsADuration: a skill's server declares its timeout as the config file
// does, a duration with a unit; a bare number or anything else is reported with the SKILL.md
// position and key instead of being silently dropped for the default.
func TestSkillServerTimeoutIsADuration(t *testing.T) {
	h := buildHost(t, "x.yaml", "pool: {max_clients: 2}\n", Options{})
	ctx := context.Background()
	for _, bad := range []any{30, 1.5, "soon", "30", true} {
		d := skillDecl("/nonexistent/server")
		d.Extra = map[string]any{"timeout": bad}
		c, err := h.skillServer(ctx, nil, "p#1", "pdf", d, false, nil, os.LookupEnv)
		if err == nil {
			_ = c.Close(ctx)
		}
		if err == nil || !strings.Contains(err.Error(), "SKILL.md:4: mcp-servers.tool.timeout") {
			t.Errorf("timeout %#v: err = %v", bad, err)
		}
	}
	d := skillDecl("/nonexistent/server")
	d.Extra = map[string]any{"timeout": "2s"}
	c, err := h.skillServer(ctx, nil, "p#1", "pdf", d, false, nil, os.LookupEnv)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if got := c.(*skillChild).Config().Timeout; got != 2*time.Second {
		t.Fatalf("timeout = %v, want 2s", got)
	}
}

// ${VAR} in a skill's own server declarations (frontmatter and mcp.json) expands with the
// config's rules: the server runs the command the variable names, with the arguments and
// environment expanded, a relative cwd taken from the skill folder afterwards; an unset
// variable without a default is an error naming it, the other skills' servers unharmed. Trust
// fingerprints the declaration as written.
func TestSkillServerEnvExpanded(t *testing.T) {
	bin := testserver.Build(t)
	dir := t.TempDir()
	logFile := filepath.Join(dir, "calls.log")
	t.Setenv("AP_SKILL_BIN", bin)
	t.Setenv("AP_SKILL_LOG", logFile)
	writeFile(t, filepath.Join(dir, "skills/front/SKILL.md"), `---
name: front
description: Its server in frontmatter, named by variables.
mcp-servers:
  fault:
    command: ${AP_SKILL_BIN}
    args: [--log, "${AP_SKILL_LOG}"]
    env: {GREETING: "${AP_SKILL_UNSET:-hi}"}
---
Body.
`)
	writeFile(t, filepath.Join(dir, "skills/json/SKILL.md"), "---\nname: json\ndescription: Its server in mcp.json.\n---\nBody.\n")
	writeFile(t, filepath.Join(dir, "skills/json/mcp.json"), `{"mcpServers": {"fault": {"command": "${AP_SKILL_BIN}", "cwd": "${AP_SKILL_SUB:-.}"}}}`)
	writeFile(t, filepath.Join(dir, "skills/unset/SKILL.md"), "---\nname: unset\ndescription: Names a variable nobody set.\nmcp-servers:\n  x: {command: \"${AP_SKILL_NOT_SET}\"}\n---\nBody.\n")
	ctx := context.Background()
	h := buildHost(t, filepath.Join(dir, "agentpool.yaml"), "skills: {dirs: [skills]}\n", Options{})
	ss := openSkills(t, h, "s1")
	if _, err := ss.Tools(ctx); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"front__count", "json__pid"} {
		res, err := ss.CallTool(ctx, &ext.ToolCall{Name: name, Arguments: json.RawMessage(`{}`)})
		if err != nil || res.IsError {
			t.Fatalf("%s = %+v, %v; diagnostics %v", name, res, err, ss.Diagnostics())
		}
	}
	if data, err := os.ReadFile(logFile); err != nil || !strings.Contains(string(data), "count") {
		t.Errorf("the server did not log to the expanded --log path: %q %v", data, err)
	}
	said := false
	for _, d := range ss.Diagnostics() {
		said = said || strings.Contains(d.Message, "AP_SKILL_NOT_SET is not set")
	}
	if !said {
		t.Errorf("no diagnostic names the unset variable: %v", ss.Diagnostics())
	}
	// As written for trust: the project's declaration keeps the reference.
	p, err := InspectProject(ProjectOptions{Dir: dir, Config: &config.Config{Skills: skill.Config{Dirs: []string{filepath.Join(dir, "skills")}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(ctx)
	for _, d := range p.Decls {
		if d.Name == "front.fault" && (d.Command != "${AP_SKILL_BIN}" || d.Args[1] != "${AP_SKILL_LOG}") {
			t.Errorf("trust's declaration = %q %q, want the references as written", d.Command, d.Args)
		}
	}
}

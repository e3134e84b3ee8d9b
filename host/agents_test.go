package host

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/internal/testserver"
)

// visibleNames are the capabilities scope sees, through the agent's Include when agent is set.
func visibleNames(t *testing.T, h *Host, scope ext.Scope) []string {
	t.Helper()
	var a *Agent
	if scope.AgentName != "" {
		var err error
		if a, err = h.Agent(scope.AgentName); err != nil {
			t.Fatal(err)
		}
	}
	var names []string
	for _, r := range h.Registry.Registrations(scope) {
		if a == nil || a.Include(r) {
			names = append(names, r.Capability.Name())
		}
	}
	return names
}

// An agent's servers are registered for that agent: its sessions see them beside the pool's,
// another agent's and a pool session do not; its session-scoped server is a process of each
// session of the agent, ended with the session.
func TestAgentServersVisibleToThatAgentOnly(t *testing.T) {
	bin := testserver.Build(t)
	ctx := context.Background()
	h := buildHost(t, filepath.Join(t.TempDir(), "x.yaml"), `
mcp_servers:
  shared: {command: /nonexistent/s, lazy: true, tools: [{name: ping}]}
agents:
  a:
    mcp_servers:
      mine: {command: /nonexistent/a, lazy: true, tools: [{name: ping}]}
      private: {command: `+bin+`, scope: session, prefix: ""}
  b:
    mcp_servers:
      mine: {command: /nonexistent/b, lazy: true, tools: [{name: ping}]}
`, Options{})
	if _, err := h.OpenAgentSession(ctx, "s1", "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.OpenAgentSession(ctx, "s2", "b"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.OpenSession(ctx, "s3"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, s := range []string{"s1", "s2", "s3"} {
			_ = h.CloseSession(ctx, s)
		}
	})
	capOf := func(scope ext.Scope, name string) ext.Capability {
		for _, c := range h.Registry.Visible(scope) {
			if c.Name() == name {
				return c
			}
		}
		return nil
	}
	a, b := ext.Scope{SessionID: "s1", AgentName: "a"}, ext.Scope{SessionID: "s2", AgentName: "b"}
	pool := ext.Scope{SessionID: "s3"}
	if got := visibleNames(t, h, a); !slices.Contains(got, "shared") || !slices.Contains(got, "mine") || !slices.Contains(got, "private") {
		t.Errorf("agent a sees %v, want shared, mine and private", got)
	}
	if capOf(a, "mine") == capOf(b, "mine") {
		t.Error("agents a and b share one server \"mine\": each should have its own")
	}
	if got := visibleNames(t, h, b); slices.Contains(got, "private") {
		t.Errorf("agent b sees agent a's server: %v", got)
	}
	if got := visibleNames(t, h, pool); slices.Contains(got, "mine") || slices.Contains(got, "private") {
		t.Errorf("a pool session sees an agent's server: %v", got)
	}
	// The session-scoped server runs, and ends with its session.
	p := capOf(a, "private").(ext.ToolProvider)
	if res, err := p.CallTool(ctx, &ext.ToolCall{Name: "pid"}); err != nil || res.IsError {
		t.Fatalf("pid = %+v, %v", res, err)
	}
	if err := h.CloseSession(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if got := visibleNames(t, h, ext.Scope{SessionID: "s1", AgentName: "a"}); slices.Contains(got, "private") {
		t.Errorf("after CloseSession agent a's session still sees %v", got)
	}
	if _, err := p.CallTool(ctx, &ext.ToolCall{Name: "pid"}); !errors.Is(err, ext.ErrClosed) {
		t.Errorf("a call after the session ended: %v, want ErrClosed", err)
	}
}

func writeSkill(t *testing.T, root, name string) {
	t.Helper()
	dir := filepath.Join(root, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	body := "---\nname: " + name + "\ndescription: The " + name + " skill.\n---\nDo " + name + ".\n"
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// An agent's skill folders: its own manager holds its skills and the pool's, and replaces the
// pool's manager in its view (one catalogue, one load_skill); an agent without folders and a
// pool session see the pool's manager only.
func TestAgentSkills(t *testing.T) {
	dir := t.TempDir()
	writeSkill(t, filepath.Join(dir, "pool"), "common")
	writeSkill(t, filepath.Join(dir, "review"), "review")
	h := buildHost(t, filepath.Join(dir, "x.yaml"), `
skills: {dirs: [./pool]}
agents:
  reviewer:
    skills: {dirs: [./review]}
  plain:
    allow_tools: [load_skill]
`, Options{})
	ctx := context.Background()
	r, err := h.Agent("reviewer")
	if err != nil {
		t.Fatal(err)
	}
	if r.Skills == nil {
		t.Fatal("agent reviewer has no skill manager")
	}
	var got []string
	for _, s := range r.Skills.Skills() {
		got = append(got, s.Name)
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"common", "review"}) {
		t.Errorf("reviewer's skills = %v, want common and review", got)
	}
	if _, err := h.OpenAgentSession(ctx, "s1", "reviewer"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.CloseSession(ctx, "s1") })
	names := visibleNames(t, h, ext.Scope{SessionID: "s1", AgentName: "reviewer"})
	if slices.Contains(names, "skills") || slices.Contains(names, skillServers) ||
		!slices.Contains(names, agentSkills) || !slices.Contains(names, agentSkillServers) {
		t.Errorf("reviewer's view holds %v: want its own skills and skill servers in place of the pool's", names)
	}
	names = visibleNames(t, h, ext.Scope{AgentName: "plain"})
	if !slices.Contains(names, "skills") || slices.Contains(names, agentSkills) {
		t.Errorf("plain's view holds %v, want the pool's skills only", names)
	}
	p, _ := h.Agent("plain")
	if !p.AllowsTool("load_skill") || p.AllowsTool("other") {
		t.Error("plain's allow_tools is not applied")
	}
}

func TestUnknownAgent(t *testing.T) {
	h := buildHost(t, filepath.Join(t.TempDir(), "x.yaml"), "agents:\n  a: {}\n", Options{})
	_, err := h.Agent("zz")
	if !errors.Is(err, ErrUnknownAgent) || !strings.Contains(err.Error(), "[a]") {
		t.Errorf("Agent(zz) = %v, want ErrUnknownAgent naming a", err)
	}
	_, err = h.OpenAgentSession(context.Background(), "s1", "zz")
	if !errors.Is(err, ErrUnknownAgent) {
		t.Errorf("OpenAgentSession(zz) = %v, want ErrUnknownAgent", err)
	}
	for _, r := range h.Registry.Registrations(ext.Scope{SessionID: "s1", AgentName: "zz"}) {
		if r.Level != ext.LevelPool {
			t.Errorf("a refused session left %s registered at %s", r.Capability.Name(), r.Slot)
		}
	}
}

// A name the agent would see twice, or one agentpool reserves, fails Build.
func TestAgentNameClash(t *testing.T) {
	for _, data := range []string{
		"agents:\n  a:\n    mcp_servers:\n      skills: {command: /nonexistent/x, lazy: true, tools: [{name: t}]}\n",
		"agents:\n  a:\n    mcp_servers:\n      agent-skills: {command: /nonexistent/x, scope: session}\n",
	} {
		cfg, err := config.Parse("x.yaml", []byte(data))
		if err != nil {
			t.Fatal(err)
		}
		h, err := Build(context.Background(), cfg, Options{})
		if err == nil {
			h.Close(context.Background())
			t.Errorf("%s: built, want a name clash", data)
		} else if !strings.Contains(err.Error(), "already used") {
			t.Errorf("%s: %v, want a name clash", data, err)
		}
	}
}

package config

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/mcpcap"
	"github.com/agentpool/agentpool/skill"
)

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestBuildWiresSourcesIntoRegistry builds a host from a config with skills, commands and a lazy
// MCP server (so nothing is started) and checks what the pool scope sees.
func TestBuildWiresSourcesIntoRegistry(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "skills/greet/SKILL.md"), "---\nname: greet\ndescription: Say hello.\n---\nHello $ARGUMENTS!\n")
	writeFile(t, filepath.Join(dir, "commands/review.md"), "---\ndescription: Review a file\n---\nReview $1 carefully.\n")
	cfgPath := filepath.Join(dir, "agentpool.yaml")
	writeFile(t, cfgPath, `
skills: {dirs: [skills]}
commands: {dirs: [commands]}
mcp_servers:
  lazy:
    command: /nonexistent/server
    lazy: true
    tools: [{name: ping, description: Ping it, read_only: true}]
  private:
    command: /nonexistent/other
    scope: session
`)
	ctx := context.Background()
	h := buildHost(t, cfgPath, "", BuildOptions{})

	var names []string
	for _, c := range h.Registry.Visible(ext.Scope{}) {
		names = append(names, c.Name())
	}
	if got := strings.Join(names, ","); got != "skills,commands,lazy" {
		t.Fatalf("pool scope sees %s", got)
	}
	tools, err := h.Servers[0].Tools(ctx)
	if err != nil || len(tools) != 1 || tools[0].Name != "ping" || !tools[0].Annotations.ReadOnlyHint {
		t.Fatalf("lazy tools = %+v, %v", tools, err)
	}
	out, err := h.Registry.ResolveURI(ctx, "skill://greet/SKILL.md", ext.Scope{})
	if err != nil || !strings.Contains(out[0].Text, "Hello $ARGUMENTS!") {
		t.Fatalf("read skill = %v, %v", out, err)
	}
	if err := h.OpenSession(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	seen := func(scope ext.Scope) bool {
		for _, c := range h.Registry.Visible(scope) {
			if c.Name() == "private" {
				return true
			}
		}
		return false
	}
	if !seen(ext.Scope{SessionID: "s1"}) || seen(ext.Scope{SessionID: "s2"}) || seen(ext.Scope{}) {
		t.Fatal("session-scoped server must be visible in its session only")
	}
	if err := h.Registry.CloseScope(ctx, ext.Scope{SessionID: "s1"}); err != nil {
		t.Fatal(err)
	}
	if seen(ext.Scope{SessionID: "s1"}) {
		t.Fatal("closed session still sees its server")
	}
}

func TestBuildRejectsDisallowedSkillServer(t *testing.T) {
	h := buildHost(t, "x.yaml", "extensions: {allowed_commands: [node]}\n", BuildOptions{})
	_, err := h.skillServer(context.Background(), "pdf", skillDecl("/bin/sh"))
	if err == nil || !strings.Contains(err.Error(), "allowed_commands") {
		t.Fatalf("err = %v", err)
	}
}

// TestOpenSessionFailureLeavesNothing: a failed OpenSession unregisters what it registered and
// leaves what was there before.
func TestOpenSessionFailureLeavesNothing(t *testing.T) {
	ctx := context.Background()
	h := buildHost(t, "x.yaml", "mcp_servers:\n  a: {command: /nonexistent/a, scope: session}\n  b: {command: /nonexistent/b, scope: session}\n", BuildOptions{})
	if err := h.OpenSession(ctx, ""); err == nil {
		t.Fatal("empty session id accepted")
	}
	s1 := ext.Scope{SessionID: "s1"}
	// Something else already holds the name "b" in s1: opening s1 fails on it after registering a.
	other, err := h.newServer("b", h.Config.MCPServers["b"], "s1")
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Registry.Register(other, ext.LevelSession, s1); err != nil {
		t.Fatal(err)
	}
	if err := h.OpenSession(ctx, "s1"); !errors.Is(err, ext.ErrDuplicate) {
		t.Fatalf("open with a duplicate: %v", err)
	}
	var names []string
	for _, c := range h.Registry.Visible(s1) {
		names = append(names, c.Name())
	}
	if got := strings.Join(names, ","); got != "skills,commands,b" {
		t.Fatalf("after a failed open, s1 sees %s; want the earlier b only", got)
	}
}

// TestBuildFailureCleansUp: a build that fails after it started something (a server whose name
// the skill manager holds; a server mcpcap.New refuses) returns the error instead of crashing,
// and leaves nothing running (goleak checks the skill watcher and the pool are gone).
func TestBuildFailureCleansUp(t *testing.T) {
	dir := t.TempDir()
	for name, servers := range map[string]mcpcap.Servers{
		"name taken":      {"skills": {Type: connpool.TypeStdio, Command: "/nonexistent/server"}},
		"attempts":        {"a": {Type: connpool.TypeStdio, Command: "/nonexistent/server", Retry: mcpcap.Retry{Attempts: 21}}},
		"bad tool filter": {"a": {Type: connpool.TypeStdio, Command: "/nonexistent/server", AllowTools: []string{"[bad"}}},
	} {
		t.Run(name, func(t *testing.T) {
			cfg := &Config{Skills: skill.Config{Dirs: []string{dir}}, MCPServers: servers}
			h, err := Build(context.Background(), cfg, BuildOptions{Watch: true})
			if err == nil || h != nil {
				t.Fatalf("Build = %v, %v; want an error and no host", h, err)
			}
		})
	}
}

package view_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/agentpool/agentpool/mcpcap"
	"github.com/agentpool/agentpool/skill"
	"github.com/agentpool/agentpool/view"
)

// The tests in this file use real parts: fault servers as stdio processes through a
// connection pool, and a skill manager watching real files.

func newPool(t *testing.T, r *ext.Registry) *connpool.Pool {
	t.Helper()
	p := connpool.New(&connpool.Options{MaxClients: 20, IdleTimeout: -1})
	r.OnClose(p.Close)
	return p
}

func serverCap(t *testing.T, p *connpool.Pool, partition string, cfg mcpcap.Config) *mcpcap.Cap {
	t.Helper()
	prefix := cfg.Name + ext.ToolSep
	cfg.Prefix = &prefix
	if cfg.Retry.Backoff == 0 {
		cfg.Retry = decl.Retry{Attempts: 1, Backoff: 10 * time.Millisecond}
	}
	c, err := mcpcap.New(cfg, mcpcap.WithPool(p, partition))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Two sessions each with their own server process, and an agent of session A with one more:
// a tools/list_changed from A's server recompiles exactly A's views.
func TestCacheWithRealServers(t *testing.T) {
	bin := testserver.Build(t)
	r := newRegistry(t)
	p := newPool(t, r)
	for _, s := range []string{"A", "B"} {
		c := serverCap(t, p, s, mcpcap.Config{Name: "state", Scope: mcpcap.ScopeSession, Server: connpool.ServerConfig{Server: decl.Server{Command: bin}}})
		register(t, r, c, ext.LevelSession, ext.Scope{SessionID: s})
	}
	agent := serverCap(t, p, "A", mcpcap.Config{Name: "helper", Scope: mcpcap.ScopeSession, Server: connpool.ServerConfig{Server: decl.Server{Command: bin, Args: []string{"--extra-tool", "assist"}}}})
	register(t, r, agent, ext.LevelAgent, ext.Scope{SessionID: "A", AgentName: "helper"})

	cache := view.NewCache(r, nil)
	ctx := context.Background()
	scopes := []ext.Scope{{SessionID: "A"}, {SessionID: "B"}, {SessionID: "A", AgentName: "helper"}}
	views := make([]*view.View, len(scopes))
	for i, s := range scopes {
		v, err := cache.Get(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		if len(v.Problems) > 0 {
			t.Fatalf("%s: problems %v", s, v.Problems)
		}
		views[i] = v
	}
	if _, ok := views[2].Tool("helper__assist"); !ok {
		t.Fatal("the agent's view lacks its own server's tool")
	}
	if _, ok := views[0].Tool("helper__assist"); ok {
		t.Fatal("session A's view shows its agent's tool")
	}

	res, err := views[0].CallTool(ctx, &ext.ToolCall{Name: "state__add_tool", Arguments: []byte(`{"name":"fresh"}`)})
	if err != nil || res.IsError {
		t.Fatalf("add_tool: %+v, %v", res, err)
	}
	var fresh [3]*view.View
	testwait.For(t, "session A's view to show the added tool", func() bool {
		v, err := cache.Get(ctx, scopes[0])
		if err != nil {
			t.Fatal(err)
		}
		_, ok := v.Tool("state__fresh")
		fresh[0] = v
		return ok
	})
	for i := 1; i < 3; i++ {
		v, err := cache.Get(ctx, scopes[i])
		if err != nil {
			t.Fatal(err)
		}
		fresh[i] = v
	}
	if fresh[1] != views[1] {
		t.Error("session B's view was recompiled after a change in session A's server")
	}
	if fresh[2] == views[2] {
		t.Error("session A's agent's view was not recompiled after a change it sees")
	}
	if _, ok := fresh[2].Tool("state__fresh"); !ok {
		t.Error("session A's agent's view lacks the added tool")
	}
	if _, ok := fresh[1].Tool("state__fresh"); ok {
		t.Error("session B sees session A's added tool")
	}
}

// A server that cannot start is degraded: its tools are absent from the next compile with the
// reason in Problems; once it can start again, a compile brings them back.
func TestDegradedServerLeavesAndReturns(t *testing.T) {
	bin := testserver.Build(t)
	dir := t.TempDir()
	flag := filepath.Join(dir, "up")
	script := filepath.Join(dir, "server.sh")
	body := fmt.Sprintf("#!/bin/sh\nif [ -f %q ]; then exec %q; fi\necho 'fixture: server is down' >&2\nexit 2\n", flag, bin)
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	r := newRegistry(t)
	p := newPool(t, r)
	flaky := serverCap(t, p, "", mcpcap.Config{Name: "flaky", Server: connpool.ServerConfig{Server: decl.Server{Command: script}}})
	steady := serverCap(t, p, "", mcpcap.Config{Name: "steady", Server: connpool.ServerConfig{Server: decl.Server{Command: bin}}})
	register(t, r, flaky, ext.LevelPool, ext.Scope{})
	register(t, r, steady, ext.LevelPool, ext.Scope{})
	ctx := context.Background()

	v := compile(t, r, ext.Scope{})
	if _, ok := v.Tool("flaky__echo"); ok {
		t.Fatal("a server that cannot start contributed tools")
	}
	if _, ok := v.Tool("steady__echo"); !ok {
		t.Fatal("the healthy server's tools are missing")
	}
	if len(v.Problems) != 1 || v.Problems[0].Capability != "flaky" {
		t.Fatalf("problems = %+v", v.Problems)
	}
	if flaky.Health().State != ext.HealthDegraded {
		t.Fatalf("health = %+v, want degraded", flaky.Health())
	}

	if err := os.WriteFile(flag, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cache := view.NewCache(r, &view.CacheOptions{RetryProblems: 20 * time.Millisecond})
	testwait.For(t, "the recovered server's tools", func() bool {
		v, err := cache.Get(ctx, ext.Scope{})
		if err != nil {
			t.Fatal(err)
		}
		_, ok := v.Tool("flaky__echo")
		return ok && len(v.Problems) == 0
	})
}

// Static instructions are byte-identical across compiles while nothing changes and differ
// right after a skill's description is edited on disk (the watcher's skills_changed).
func TestStaticInstructionsFollowSkillEdits(t *testing.T) {
	root := t.TempDir()
	writeSkill := func(desc string) {
		t.Helper()
		dir := filepath.Join(root, "greet")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		md := "---\nname: greet\ndescription: " + desc + "\n---\nSay hello.\n"
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeSkill("Greets the user.")
	m, err := skill.NewManager(&skill.Options{Roots: []string{root}, Watch: true, Debounce: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	r := newRegistry(t)
	register(t, r, m, ext.LevelPool, ext.Scope{})
	cache := view.NewCache(r, nil)
	ctx := context.Background()
	a, err := cache.Get(ctx, ext.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	b := compile(t, r, ext.Scope{})
	if a.Instructions.Static == "" || a.Instructions.Static != b.Instructions.Static {
		t.Fatalf("static instructions differ with nothing changed:\n%q\n%q", a.Instructions.Static, b.Instructions.Static)
	}
	writeSkill("Greets the user warmly.")
	testwait.For(t, "the edited description in the static instructions", func() bool {
		v, err := cache.Get(ctx, ext.Scope{})
		if err != nil {
			t.Fatal(err)
		}
		return v.Instructions.Static != a.Instructions.Static
	})
}

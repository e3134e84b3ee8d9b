package gateway_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/gateway"
	"github.com/agentpool/agentpool/host"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/view"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// agentsFixture serves a host with agents through gateway.Mux, wired as `agentpool serve`
// wires it: one Gateway per agent, with that agent's base scope, sessions and view options.
func agentsFixture(t *testing.T, yaml string, set func(*gateway.Options)) string {
	t.Helper()
	dir := t.TempDir()
	cfg, err := config.Parse(filepath.Join(dir, "agentpool.yaml"), []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.Build(context.Background(), cfg, host.Options{ProjectDir: dir, HomeDir: dir, NoDefaultRoots: true})
	if err != nil {
		t.Fatal(err)
	}
	newGateway := func(o gateway.Options) *gateway.Gateway {
		o.Registry = h.Registry
		if set != nil {
			set(&o)
		}
		g, err := gateway.New(o)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	pool := newGateway(gateway.Options{OpenSession: h.OpenSessionFunc(""), CloseSession: h.CloseSession})
	all := []*gateway.Gateway{pool}
	agents := map[string]*gateway.Gateway{}
	for _, name := range cfg.Agents.Names() {
		a, err := h.Agent(name)
		if err != nil {
			t.Fatal(err)
		}
		agents[name] = newGateway(gateway.Options{
			Scope:        ext.Scope{AgentName: name},
			Cache:        view.NewCache(h.Registry, &view.CacheOptions{Compile: &view.Options{Include: a.Include, Tools: a.AllowsTool}}),
			OpenSession:  h.OpenSessionFunc(name),
			CloseSession: h.CloseSession,
		})
		all = append(all, agents[name])
	}
	srv := httptest.NewServer(gateway.Mux(pool, agents))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for _, g := range all {
			if err := g.Close(ctx); err != nil {
				t.Errorf("gateway close: %v", err)
			}
		}
		srv.Close()
		if err := h.Close(ctx); err != nil {
			t.Errorf("host close: %v", err)
		}
	})
	return srv.URL
}

func listTools(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

// An agent's tools are served at /mcp/agents/<agent>, not at another agent's path nor at
// /mcp; an agent's allow_tools and deny_tools filter what its path lists and what it lets a
// client call, the pool's tools included.
func TestAgentPaths(t *testing.T) {
	bin := testserver.Build(t)
	url := agentsFixture(t, `
mcp_servers:
  shared: {command: `+bin+`}
agents:
  a:
    mcp_servers:
      mine: {command: `+bin+`, scope: session}
  b:
    allow_tools: ["shared__*"]
    deny_tools: [shared__crash, shared__sleep]
`, nil)
	csA, _ := connect(t, url+"/mcp/agents/a", nil)
	csB, _ := connect(t, url+"/mcp/agents/b", nil)
	csPool, _ := connect(t, url+"/mcp", nil)

	toolsA, toolsB, toolsPool := listTools(t, csA), listTools(t, csB), listTools(t, csPool)
	if !slices.Contains(toolsA, "mine__pid") || !slices.Contains(toolsA, "shared__pid") {
		t.Errorf("agent a lists %v, want its own mine__pid and the pool's shared__pid", toolsA)
	}
	if slices.ContainsFunc(toolsB, func(n string) bool { return strings.HasPrefix(n, "mine__") }) {
		t.Errorf("agent b lists agent a's tools: %v", toolsB)
	}
	if slices.ContainsFunc(toolsPool, func(n string) bool { return strings.HasPrefix(n, "mine__") }) {
		t.Errorf("/mcp lists agent a's tools: %v", toolsPool)
	}
	// b's filter: only shared__*, without the two denied.
	if slices.Contains(toolsB, "shared__crash") || slices.Contains(toolsB, "shared__sleep") || !slices.Contains(toolsB, "shared__echo") {
		t.Errorf("agent b lists %v, want shared__* without shared__crash and shared__sleep", toolsB)
	}
	for _, n := range toolsB {
		if !strings.HasPrefix(n, "shared__") {
			t.Errorf("agent b lists %s, which allow_tools excludes", n)
		}
	}
	if !slices.Contains(toolsPool, "shared__crash") {
		t.Errorf("/mcp lists %v: b's filter leaked into the pool's view", toolsPool)
	}
	// A denied tool cannot be called at b's path; it can at /mcp.
	res, err := csB.CallTool(context.Background(), &mcp.CallToolParams{Name: "shared__crash", Arguments: map[string]any{}})
	if err == nil && !res.IsError {
		t.Error("agent b called shared__crash, which deny_tools removes")
	}
	if got := call(t, csA, "mine__echo", map[string]any{"text": "hi"}); got != "hi" {
		t.Errorf("mine__echo through a = %q", got)
	}
	if got := call(t, csB, "shared__echo", map[string]any{"text": "hi"}); got != "hi" {
		t.Errorf("shared__echo through b = %q", got)
	}
}

// Under /mcp/agents/ a name that is no agent is 404 with a body naming the agents there are;
// a caller the token check refuses is told 401 first, and learns no agent name.
func TestUnknownAgentPath(t *testing.T) {
	url := agentsFixture(t, "agents:\n  a: {}\n  b: {}\n", func(o *gateway.Options) { o.Token = "s3cret" })
	get := func(path, token string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, url+path, strings.NewReader(initBody))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	status, body := get("/mcp/agents/zz", "s3cret")
	if status != http.StatusNotFound || !strings.Contains(body, `no agent "zz"`) || !strings.Contains(body, "a, b") {
		t.Errorf("unknown agent: %d %q, want 404 naming zz and the agents a, b", status, body)
	}
	if status, body := get("/mcp/agents/zz", ""); status != http.StatusUnauthorized || strings.Contains(body, "a, b") {
		t.Errorf("unknown agent without the token: %d %q, want 401 and no agent names", status, body)
	}
	if status, _ := get("/mcp/agents/a", "s3cret"); status != http.StatusOK {
		t.Errorf("agent a's initialize: %d, want 200", status)
	}
}

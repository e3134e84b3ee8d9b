package config

import (
	"path/filepath"
	"testing"
	"time"
)

// The agents and server sections decode with ${VAR} expansion (server.token) and paths
// resolved against the file's folder (an agent's skills.dirs), as every other section.
func TestAgentsAndServerSections(t *testing.T) {
	t.Setenv("AGENTPOOL_TEST_TOKEN", "s3cret")
	data := `
mcp_servers:
  shared: {command: echo}
agents:
  reviewer:
    mcp_servers:
      github: {command: echo, scope: session}
    skills: {dirs: [./review-skills]}
    allow_tools: ["github__*", load_skill]
    deny_tools: [github__delete_*]
server:
  addr: 127.0.0.1:9000
  session_idle_timeout: 5m
  token: ${AGENTPOOL_TEST_TOKEN}
  max_sessions: 10
  allowed_origins: [https://app.example]
  max_body: 1024
`
	dir := t.TempDir()
	cfg, err := Parse(filepath.Join(dir, "agentpool.yaml"), []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	a, ok := cfg.Agents["reviewer"]
	if !ok {
		t.Fatalf("agents = %v", cfg.Agents)
	}
	if got := a.Skills.Dirs; len(got) != 1 || got[0] != filepath.Join(dir, "review-skills") {
		t.Errorf("skills.dirs = %v, want the folder beside the file", got)
	}
	if s := a.MCPServers["github"]; s.Command != "echo" || s.Scope != "session" {
		t.Errorf("agent server = %+v", s)
	}
	want := Server{Addr: "127.0.0.1:9000", SessionIdleTimeout: 5 * time.Minute, Token: "s3cret",
		MaxSessions: 10, AllowedOrigins: []string{"https://app.example"}, MaxBody: 1024}
	if got := cfg.Server; got.Addr != want.Addr || got.SessionIdleTimeout != want.SessionIdleTimeout ||
		got.Token != want.Token || got.MaxSessions != want.MaxSessions || got.MaxBody != want.MaxBody ||
		len(got.AllowedOrigins) != 1 || got.AllowedOrigins[0] != want.AllowedOrigins[0] {
		t.Errorf("server = %+v, want %+v", got, want)
	}
}

func TestAgentAllowsTool(t *testing.T) {
	for _, c := range []struct {
		agent Agent
		tool  []string // the served name, then the name as listed when it differs
		want  bool
	}{
		{Agent{}, []string{"anything"}, true},
		{Agent{AllowTools: []string{"github__*"}}, []string{"github__search"}, true},
		{Agent{AllowTools: []string{"github__*"}}, []string{"load_skill"}, false},
		{Agent{AllowTools: []string{}}, []string{"load_skill"}, false}, // allow_tools: [] allows none
		{Agent{DenyTools: []string{"*__delete*"}}, []string{"github__delete_repo"}, false},
		{Agent{DenyTools: []string{"*__delete*"}}, []string{"github__search"}, true},
		{Agent{AllowTools: []string{"github__*"}, DenyTools: []string{"github__delete_*"}}, []string{"github__delete_repo"}, false},
		// A pattern may name a tool by its served name or by the name its server lists.
		{Agent{DenyTools: []string{"deploy.api__delete*"}}, []string{"deploy_api__delete_all", "deploy.api__delete_all"}, false},
		{Agent{DenyTools: []string{"deploy_api__delete*"}}, []string{"deploy_api__delete_all", "deploy.api__delete_all"}, false},
		{Agent{AllowTools: []string{"deploy.api__*"}}, []string{"deploy_api__read", "deploy.api__read"}, true},
		{Agent{AllowTools: []string{"deploy_api__*"}}, []string{"deploy_api__read", "deploy.api__read"}, true},
		{Agent{AllowTools: []string{"deploy.api__*"}}, []string{"other__read", "other.x__read"}, false},
	} {
		if got := c.agent.AllowsTool(c.tool...); got != c.want {
			t.Errorf("%+v.AllowsTool(%q) = %v, want %v", c.agent, c.tool, got, c.want)
		}
	}
}

package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// nameRule is what the Anthropic and OpenAI APIs and strict MCP clients accept as a tool name.
var nameRule = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// longServer is an 80-character server name.
var longServer = "s" + strings.Repeat("0123456789", 7) + "-long-srv"

// namedPluginTools are the faultserver tools the named plugins' servers keep: those that answer
// at once, whatever the arguments ("read.graph" is an echo added by --extra-tool).
var namedPluginTools = []string{"echo", "pid", "lookup", "state_get", "read.graph"}

// writeNamedPlugins writes two plugins under dir whose servers' qualified tool names break the
// name rule, both running the faultserver bin with namedPluginTools and its plugin folder in
// its command line (--log): plugin deploy's server "api.v2" (tools "deploy.api.v2__<tool>")
// and plugin "very-long-plugin-name-…"'s server longServer (tools past 64 characters). It
// returns the config file that loads them.
func writeNamedPlugins(t *testing.T, dir, bin string) string {
	t.Helper()
	long := "very-long-plugin-name-" + strings.Repeat("x", 40)
	for name, server := range map[string]string{"deploy": "api.v2", long: longServer} {
		pdir := filepath.Join(dir, name)
		writeFile(t, filepath.Join(pdir, ".claude-plugin", "plugin.json"), `{"name": "`+name+`", "version": "0.1.0"}`)
		decl, err := json.Marshal(map[string]any{"mcpServers": map[string]any{server: map[string]any{
			"command": bin, "args": []string{"--extra-tool", "read.graph", "--log", filepath.Join(pdir, "calls.log")},
			"allow_tools": namedPluginTools}}})
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(pdir, ".mcp.json"), string(decl))
	}
	cfg := filepath.Join(dir, "agentpool.yaml")
	writeFile(t, cfg, "plugins:\n  dirs: [./deploy, ./"+long+"]\n")
	return cfg
}

// compile reports every tool name the name rule mapped, qualified → served, in its text and in
// --json; every name it lists matches the rule.
func TestCompileReportsMappedNames(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := writeNamedPlugins(t, dir, testserver.Build(t))

	stdout, stderr, err := runCLI(t, "--no-default-roots", "--config", cfg, "compile")
	if err != nil {
		t.Fatalf("compile: %v\n%s", err, stderr)
	}
	for _, want := range []string{"deploy.api.v2__echo → deploy_api_v2__echo", "deploy.api.v2__read.graph → deploy_api_v2__read_graph"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("compile does not report %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stdout, longServer+"__echo → ") {
		t.Errorf("compile does not report the long server's names:\n%s", stdout)
	}

	stdout, stderr, err = runCLI(t, "--no-default-roots", "--config", cfg, "compile", "--json")
	if err != nil {
		t.Fatalf("compile --json: %v\n%s", err, stderr)
	}
	var v struct {
		Tools []struct{ Name, Qualified, Capability string }
	}
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatalf("compile --json output: %v\n%s", err, stdout)
	}
	mapped := map[string]string{}
	for _, tool := range v.Tools {
		if !nameRule.MatchString(tool.Name) {
			t.Errorf("tool %q does not match %s", tool.Name, nameRule)
		}
		if tool.Qualified != "" {
			mapped[tool.Qualified] = tool.Name
		} else if strings.Contains(tool.Capability, ".") {
			t.Errorf("tool %q of %s is not reported as mapped", tool.Name, tool.Capability)
		}
	}
	if got := mapped["deploy.api.v2__read.graph"]; got != "deploy_api_v2__read_graph" {
		t.Errorf("deploy.api.v2__read.graph is served as %q; mapped = %v", got, mapped)
	}
	if len(mapped) != 2*len(namedPluginTools) {
		t.Errorf("names mapped: %v; want every tool of both plugins' servers", mapped)
	}
}

// A prefix "" server listing github__create_issue beside a server named github does not take
// the name, whether its own name sorts before or after github: compile reports the collision
// naming both, the github server's tool keeps the name, and the other is served under its
// server's name.
func TestBareServerCannotTakeQualifiedName(t *testing.T) {
	t.Parallel()
	bin := testserver.Build(t)
	for _, bare := range []string{"aaa", "zzz"} {
		t.Run(bare, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			cfg := filepath.Join(dir, "agentpool.yaml")
			writeFile(t, cfg, `
mcp_servers:
  github:
    command: `+bin+`
    args: [--extra-tool, create_issue]
  `+bare+`:
    command: `+bin+`
    args: [--extra-tool, github__create_issue]
    prefix: ""
`)
			stdout, stderr, err := runCLI(t, "--no-default-roots", "--config", cfg, "compile", "--json")
			if err != nil {
				t.Fatalf("compile: %v\n%s", err, stderr)
			}
			var v compiledView
			if err := json.Unmarshal([]byte(stdout), &v); err != nil {
				t.Fatalf("compile --json output: %v\n%s", err, stdout)
			}
			owner := map[string]string{}
			for _, tool := range v.Tools {
				owner[tool.Name] = tool.Capability
			}
			if owner["github__create_issue"] != "github" || owner[bare+"__github__create_issue"] != bare {
				t.Errorf("github__create_issue is %q's, %s__github__create_issue %q's; want github's and %s's",
					owner["github__create_issue"], bare, owner[bare+"__github__create_issue"], bare)
			}
			var found bool
			for _, c := range v.Collisions {
				if c.Kind == "tool" && c.Name == "github__create_issue" {
					found = c.Winner.Capability == "github" && c.Loser.Capability == bare && c.Loser.ReachableAs == bare+"__github__create_issue"
				}
			}
			if !found {
				t.Errorf("collisions = %+v; want github__create_issue, github over %s", v.Collisions, bare)
			}
		})
	}
}

// A real `agentpool serve` with two plugins whose qualified tool names break the rule (a
// dotted server name, an 80-character one) serves only names that match it, and a call under
// each served name reaches its upstream tool under the tool's own name, in the right plugin's
// server.
func TestServeNamesFromPlugins(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := writeNamedPlugins(t, dir, testserver.Build(t))
	cmd := exec.Command("agentpool", "--config", cfg, "--no-default-roots", "serve", "--http", "127.0.0.1:0")
	cmd.Env = pluginEnv(dir)
	url := startServeCmd(t, cmd)

	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var tools []*mcp.Tool
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		tools = append(tools, tool)
	}
	if len(tools) != 2*len(namedPluginTools) {
		t.Errorf("served %d tools, want %d", len(tools), 2*len(namedPluginTools))
	}
	served := map[string]bool{}
	for _, tool := range tools {
		served[tool.Name] = true
		if !nameRule.MatchString(tool.Name) {
			t.Errorf("served tool name %q does not match %s", tool.Name, nameRule)
			continue
		}
		own := tool.Name[strings.LastIndex(tool.Name, "__")+2:]
		plugin := "deploy"
		if !strings.HasPrefix(tool.Name, "deploy_api_v2__") {
			plugin = "very-long-plugin-name-"
		}
		args, want := map[string]any{}, ""
		switch own {
		case "echo", "read_graph":
			args["text"], want = tool.Name, tool.Name
		case "lookup":
			args["key"], want = tool.Name, "value-of-"+tool.Name
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool.Name, Arguments: args})
		if err != nil || res.IsError || len(res.Content) == 0 {
			t.Errorf("call %s: %v %+v", tool.Name, err, res)
			continue
		}
		text := res.Content[0].(*mcp.TextContent).Text
		switch own {
		case "pid":
			line, err := os.ReadFile(filepath.Join("/proc", strings.TrimSpace(text), "cmdline"))
			if err != nil || !strings.Contains(string(line), filepath.Join(dir, plugin)) {
				t.Errorf("%s answered pid %s, whose command line %q is not %s's server's (%v)", tool.Name, text, line, plugin, err)
			}
		case "state_get":
		default:
			if text != want {
				t.Errorf("%s answered %q, want %q", tool.Name, text, want)
			}
		}
	}
	for _, want := range []string{"deploy_api_v2__read_graph", "deploy_api_v2__echo"} {
		if !served[want] {
			t.Errorf("%s not served", want)
		}
	}
}

package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// agentsConfig writes a config with a pool server, agent a with a session-scoped server of
// its own, agent b that denies two pool tools, and the server section given.
func agentsConfig(t *testing.T, server string) string {
	t.Helper()
	bin := testserver.Build(t)
	path := filepath.Join(t.TempDir(), "agentpool.yaml")
	writeFile(t, path, `
mcp_servers:
  shared: {command: `+bin+`}
agents:
  a:
    mcp_servers:
      mine: {command: `+bin+`, scope: session}
  b:
    deny_tools: [shared__crash, "shared__s*"]
`+server)
	return path
}

// startAgentServe runs the real binary's serve with args and returns the endpoint it printed.
func startAgentServe(t *testing.T, env []string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command("agentpool", args...)
	cmd.Env = append(slices.DeleteFunc(os.Environ(), func(e string) bool { return strings.HasPrefix(e, "AGENTPOOL_TOKEN=") }),
		append(env, "HOME="+t.TempDir())...)
	url := startServeCmd(t, cmd)
	return cmd, url
}

type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func toolNamesAt(t *testing.T, url string, hc *http.Client) []string {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	defer cs.Close()
	return toolsOf(t, cs)
}

// TestServeAgentsBinary: the real binary serves the config's agents at /mcp/agents/<name>
// with the server section's address and token: a request without the token is 401, agent
// a's own tools are at its path only, b's deny_tools hold, an unknown agent is 404 naming
// the agents, and SIGTERM still exits 0.
func TestServeAgentsBinary(t *testing.T) {
	t.Parallel()
	cfg := agentsConfig(t, "server:\n  addr: 127.0.0.1:0\n  token: ${AGENTPOOL_TEST_TOKEN}\n  session_idle_timeout: 1m\n")
	cmd, url := startAgentServe(t, []string{"AGENTPOOL_TEST_TOKEN=s3cret"}, "--no-default-roots", "--config", cfg, "serve")

	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
	req.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	} else if resp.Body.Close(); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("no token: %d, want 401 (server.token)", resp.StatusCode)
	}

	hc := &http.Client{Transport: bearerTransport{"s3cret"}}
	a, b, pool := toolNamesAt(t, url+"/agents/a", hc), toolNamesAt(t, url+"/agents/b", hc), toolNamesAt(t, url, hc)
	mine := func(n string) bool { return strings.HasPrefix(n, "mine__") }
	if !slices.ContainsFunc(a, mine) || !slices.Contains(a, "shared__echo") {
		t.Errorf("/mcp/agents/a lists %v, want mine__* and shared__*", a)
	}
	if slices.ContainsFunc(b, mine) || slices.ContainsFunc(pool, mine) {
		t.Errorf("agent a's tools leak: b lists %v, /mcp lists %v", b, pool)
	}
	if slices.Contains(b, "shared__crash") || slices.Contains(b, "shared__sleep") || !slices.Contains(b, "shared__echo") {
		t.Errorf("/mcp/agents/b lists %v, want shared__* without crash and s*", b)
	}

	req, _ = http.NewRequest(http.MethodPost, url+"/agents/zz", strings.NewReader("{}"))
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), `no agent "zz"`) || !strings.Contains(string(body), "a, b") {
		t.Errorf("/mcp/agents/zz: %d %q, want 404 naming the agents", resp.StatusCode, body)
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitExit(t, cmd, "serve after SIGTERM")
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit code %d after SIGTERM, want 0", code)
	}
}

// A flag given overrides the server section: --token replaces server.token, --http
// server.addr (here one that cannot be listened on).
func TestServeFlagsOverrideConfig(t *testing.T) {
	t.Parallel()
	cfg := agentsConfig(t, "server:\n  addr: 256.0.0.1:7433\n  token: from-config\n")
	_, url := startAgentServe(t, nil, "--no-default-roots", "--config", cfg, "serve", "--http", "127.0.0.1:0", "--token", "from-flag")
	if names := toolNamesAt(t, url, &http.Client{Transport: bearerTransport{"from-flag"}}); !slices.Contains(names, "shared__echo") {
		t.Errorf("with the flag's token: %v", names)
	}
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader("{}"))
	req.Header.Set("Authorization", "Bearer from-config")
	if resp, err := http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	} else if resp.Body.Close(); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the config's token after --token: %d, want 401", resp.StatusCode)
	}
}

// compile --agent shows that agent's view, through the real binary: a's own servers, b's
// filter; an unknown agent fails with a message naming the agents there are.
func TestCompileAgentBinary(t *testing.T) {
	t.Parallel()
	path := agentsConfig(t, "")
	compiled := func(agent string) []string {
		t.Helper()
		out, err := exec.Command("agentpool", "--no-default-roots", "--config", path, "compile", "--agent", agent, "--json").Output()
		if err != nil {
			t.Fatalf("compile --agent %s: %v", agent, err)
		}
		var v compiledView
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range v.Tools {
			names = append(names, tl.Name)
		}
		return names
	}
	if got := compiled("a"); !slices.Contains(got, "mine__echo") || !slices.Contains(got, "shared__crash") {
		t.Errorf("compile --agent a: %v, want mine__echo and the pool's tools", got)
	}
	if got := compiled("b"); slices.Contains(got, "mine__echo") || slices.Contains(got, "shared__crash") || !slices.Contains(got, "shared__echo") {
		t.Errorf("compile --agent b: %v, want the pool's tools without shared__crash", got)
	}
	cmd := exec.Command("agentpool", "--no-default-roots", "--config", path, "compile", "--agent", "zz")
	out, err := cmd.CombinedOutput()
	if err == nil || cmd.ProcessState.ExitCode() != 1 || !strings.Contains(string(out), `unknown agent "zz"`) || !strings.Contains(string(out), "[a b]") {
		t.Errorf("compile --agent zz: %v, %q; want exit 1 naming the agents", err, out)
	}
}

// serve --stdio --agent serves that agent's view to the client that spawned it; an unknown
// agent fails at once, naming the agents.
func TestServeStdioAgentBinary(t *testing.T) {
	t.Parallel()
	cfg := agentsConfig(t, "")
	cmd := exec.Command("agentpool", "--no-default-roots", "--config", cfg, "serve", "--stdio", "--agent", "a")
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	cs, in, _ := connectStdio(t, cmd, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(res.Tools, func(tl *mcp.Tool) bool { return tl.Name == "mine__echo" }) {
		t.Errorf("serve --stdio --agent a lists %d tools without mine__echo", len(res.Tools))
	}
	_ = in.Close()
	waitExit(t, cmd, "serve --stdio --agent after stdin closed")
	_ = cs.Close()
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}

	bad := exec.Command("agentpool", "--no-default-roots", "--config", cfg, "serve", "--stdio", "--agent", "zz")
	msg, err := bad.CombinedOutput()
	if err == nil || !strings.Contains(string(msg), `unknown agent "zz"`) {
		t.Errorf("serve --stdio --agent zz: %v, %q; want a failure naming zz", err, msg)
	}
}

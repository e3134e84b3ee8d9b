package main

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// initializeStatus posts an initialize request to url and returns the HTTP status and body.
func initializeStatus(t *testing.T, url string) (int, string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// connectAt opens an MCP session at url.
func connectAt(t *testing.T, url string) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// toolsOf lists the tools a session sees, by name.
func toolsOf(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, x := range res.Tools {
		names = append(names, x.Name)
	}
	return names
}

// TestServeReloadAgentRoutes: agent paths follow reloads of the real binary. Adding agent b
// serves /mcp/agents/b with b's view (its own server, not a's) while a's live session goes
// on with the same processes; removing a ends a's live session (a call fails), makes a new
// initialize at /mcp/agents/a a 404, and ends a's servers' processes — its own pool-scoped
// server and its session's server — at once; b's and the pool's sessions go on. Changing b's
// deny_tools keeps its server's process.
func TestServeReloadAgentRoutes(t *testing.T) {
	t.Parallel()
	bin := testserver.Build(t)
	path := filepath.Join(t.TempDir(), "agentpool.yaml")
	// Distinct args: the pool shares one process between identical commands.
	shared := "mcp_servers:\n  shared: {command: " + bin + "}\n"
	agentA := "  a:\n    mcp_servers:\n" +
		"      own: {command: " + bin + ", args: [--stderr, a-own]}\n" +
		"      mine: {command: " + bin + ", args: [--stderr, a-mine], scope: session}\n"
	agentB := "  b:\n    deny_tools: [shared__crash]\n    mcp_servers:\n" +
		"      bown: {command: " + bin + ", args: [--stderr, b-own]}\n"
	writeFile(t, path, shared+"agents:\n"+agentA)
	_, url, log := startReloadServe(t, path)

	if code, body := initializeStatus(t, url+"/agents/b"); code != http.StatusNotFound {
		t.Fatalf("/mcp/agents/b before b is declared: %d %q, want 404", code, body)
	}
	pool := connectAt(t, url)
	a := connectAt(t, url+"/agents/a")
	own, mine := pidOf(t, a, "own__pid"), pidOf(t, a, "mine__pid")

	replaceFile(t, path, shared+"agents:\n"+agentA+agentB)
	waitReload(t, "/mcp/agents/b served", func() bool {
		code, _ := initializeStatus(t, url+"/agents/b")
		return code == http.StatusOK
	})
	b := connectAt(t, url+"/agents/b")
	bTools := toolsOf(t, b)
	if !slices.Contains(bTools, "bown__pid") || !slices.Contains(bTools, "shared__pid") ||
		slices.Contains(bTools, "shared__crash") || slices.Contains(bTools, "own__pid") || slices.Contains(bTools, "mine__pid") {
		t.Errorf("/mcp/agents/b lists %v, want bown__* and shared__* but not shared__crash nor a's", bTools)
	}
	bown := pidOf(t, b, "bown__pid")
	if got := pidOf(t, a, "own__pid"); got != own {
		t.Errorf("adding b restarted a's own server: pid %d, was %d", got, own)
	}
	if got := pidOf(t, a, "mine__pid"); got != mine {
		t.Errorf("adding b restarted a's session server: pid %d, was %d", got, mine)
	}

	replaceFile(t, path, shared+"agents:\n"+agentB)
	waitReload(t, "/mcp/agents/a refusing initialize", func() bool {
		code, _ := initializeStatus(t, url+"/agents/a")
		return code == http.StatusNotFound
	})
	if code, body := initializeStatus(t, url+"/agents/a"); !strings.Contains(body, `no agent "a"`) {
		t.Errorf("/mcp/agents/a after a's removal: %d %q, want a 404 naming no agent \"a\"", code, body)
	}
	var callErr error
	waitReload(t, "a's live session ended", func() bool {
		_, callErr = a.CallTool(context.Background(), &mcp.CallToolParams{Name: "own__pid", Arguments: map[string]any{}})
		return callErr != nil
	})
	t.Logf("a's live session after a's removal: %v", callErr)
	waitGone(t, own, "removed agent a's own server")
	waitGone(t, mine, "removed agent a's session server")
	if got := pidOf(t, b, "bown__pid"); got != bown {
		t.Errorf("removing a restarted b's server: pid %d, was %d", got, bown)
	}
	pidOf(t, pool, "shared__pid")
	if err := syscall.Kill(bown, 0); err != nil {
		t.Errorf("b's server %d: %v", bown, err)
	}

	// A changed agent keeps the process of a server it declares as before.
	replaceFile(t, path, shared+"agents:\n"+strings.Replace(agentB, "deny_tools: [shared__crash]", "deny_tools: []", 1))
	waitReload(t, "b's deny_tools lifted", func() bool {
		return slices.Contains(toolsOf(t, b), "shared__crash")
	})
	if got := waitNewPid(t, b, "bown__pid", 0); got != bown {
		t.Errorf("changing b's deny_tools restarted its unchanged server: pid %d, was %d", got, bown)
	}
	if strings.Contains(log.String(), "level=ERROR") {
		t.Errorf("serve logged an error:\n%s", log.String())
	}
}

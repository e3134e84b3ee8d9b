package main

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An agent that declares no server and no skill folder of its own, only a tool filter: a
// reload that denies a tool takes it out of the agent's live session (listing and call),
// though no registration changed.
func TestServeReloadAgentFilterOnly(t *testing.T) {
	t.Parallel()
	bin := testserver.Build(t)
	path := filepath.Join(t.TempDir(), "agentpool.yaml")
	shared := "mcp_servers:\n  shared: {command: " + bin + "}\n"
	writeFile(t, path, shared+"agents:\n  c:\n    deny_tools: []\n")
	_, url, log := startServeIn(t, "", []string{"HOME=" + t.TempDir()}, "--config", path, "--log-level", "info", "serve", "--http", "127.0.0.1:0")
	c := connectAt(t, url+"/agents/c")
	if !slices.Contains(toolsOf(t, c), "shared__echo") {
		t.Fatalf("agent c does not list shared__echo before the reload: %v", toolsOf(t, c))
	}
	replaceFile(t, path, shared+"agents:\n  c:\n    deny_tools: [shared__echo]\n")
	waitReload(t, "the reload applied", func() bool { return strings.Contains(log.String(), `msg="config reloaded" file=`) })
	// The session applies the new view on its own goroutine once the reload is announced
	// (and then tells its client tools/list_changed), so the listing follows shortly after
	// serve's line, not necessarily at once.
	waitReload(t, "agent c's listing without shared__echo", func() bool { return !slices.Contains(toolsOf(t, c), "shared__echo") })
	res, err := c.CallTool(context.Background(), &mcp.CallToolParams{Name: "shared__echo", Arguments: map[string]any{"text": "x"}})
	if err == nil && !res.IsError {
		t.Errorf("agent c called shared__echo after deny_tools named it: %+v", res.Content)
	}
}

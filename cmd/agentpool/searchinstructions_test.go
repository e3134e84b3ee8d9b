package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/exposure"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Through a real serve in search mode, words that only server-everything's initialize
// instructions hold (its easter egg) find its tools and no other server's. Both servers are
// given the time they need to start (npmStartup): one left out of the view has no tools to find.
func TestSearchModeFindsByServerInstructions(t *testing.T) {
	t.Parallel()
	everything, memory := testserver.NPMBin(t, "mcp-server-everything"), testserver.NPMBin(t, "mcp-server-memory")
	dir := t.TempDir()
	cfg := filepath.Join(dir, "agentpool.yaml")
	writeFile(t, cfg, `
mcp_servers:
  everything: {command: `+everything+`, `+npmStartup+`}
  memory:
    command: `+memory+`
    env: {MEMORY_FILE_PATH: `+filepath.Join(dir, "memory.jsonl")+`}
    `+npmStartup+`
server:
  tools: {mode: search}
`)
	run := startCacheRun(t, cfg, filepath.Join(dir, "cache"))
	defer run.stop()
	res, err := run.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: exposure.SearchTool, Arguments: map[string]any{"query": "easter egg", "limit": 3}})
	if err != nil || res.IsError {
		t.Fatalf("search_tools: %v %+v", err, res)
	}
	var found exposure.Found
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &found); err != nil {
		t.Fatal(err)
	}
	if len(found.Tools) == 0 {
		t.Fatal("search_tools found nothing for words of everything's instructions")
	}
	for _, m := range found.Tools {
		if !strings.HasPrefix(m.Name, "everything__") {
			t.Errorf("found %s for words of everything's instructions", m.Name)
		}
	}
}

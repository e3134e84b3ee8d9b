package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// callTool calls name through cs and returns its text and whether it is a tool error; a
// protocol error fails the test.
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	return text.String(), res.IsError
}

// TestRealServersSandboxed: the reference servers and a Go server run through `serve` in a
// sandbox given only read: or write: folders, and work: server-everything echoes,
// server-memory keeps its graph in a file of its allowed folder, server-filesystem reads in
// its root, the faultserver answers. server-filesystem is also told a second folder the
// sandbox does not grant, so its own path check passes for a file there and for a symlink in
// its root pointing there: the sandbox alone refuses both.
func TestRealServersSandboxed(t *testing.T) {
	t.Parallel()
	home, work, mem, root, outside := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(root, "notes.txt"), "inside the root\n")
	writeFile(t, filepath.Join(outside, "secret.txt"), "outside the sandbox\n")
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "link.txt")); err != nil {
		t.Fatal(err)
	}
	memFile := filepath.Join(mem, "memory.jsonl")
	cs, stderr := serveConfig(t, home, fmt.Sprintf(`mcp_servers:
  everything:
    command: %s
    sandbox: {read: [%s]}
  memory:
    command: %s
    env: {MEMORY_FILE_PATH: %s}
    sandbox: {write: [%s]}
  files:
    command: %s
    args: [%s, %s]
    sandbox: {write: [%s]}
  fault:
    command: %s
    sandbox: {read: [%s]}
`, everythingServer(t), work,
		testserver.NPMBin(t, "mcp-server-memory"), memFile, mem,
		testserver.NPMBin(t, "mcp-server-filesystem"), root, outside, root,
		testserver.Build(t), work))

	ok := func(name string, args map[string]any, want string) {
		t.Helper()
		text, isErr := callTool(t, cs, name, args)
		if isErr || !strings.Contains(text, want) {
			t.Errorf("%s: %q (error %v), want it to hold %q; serve's stderr:\n%s", name, text, isErr, want, stderr)
		}
	}
	ok("everything__echo", map[string]any{"message": "sandboxed"}, "sandboxed")
	ok("fault__echo", map[string]any{"text": "sandboxed"}, "sandboxed")
	entities := map[string]any{"entities": []any{map[string]any{"name": "agentpool", "entityType": "project", "observations": []any{"sandboxed"}}}}
	ok("memory__create_entities", entities, "agentpool")
	ok("memory__read_graph", map[string]any{}, "sandboxed")
	if b, err := os.ReadFile(memFile); err != nil || !strings.Contains(string(b), "agentpool") {
		t.Errorf("server-memory's file %s: %q, %v", memFile, b, err)
	}
	ok("files__read_text_file", map[string]any{"path": filepath.Join(root, "notes.txt")}, "inside the root")
	ok("files__write_file", map[string]any{"path": filepath.Join(root, "new.txt"), "content": "written"}, "")
	if b, err := os.ReadFile(filepath.Join(root, "new.txt")); err != nil || string(b) != "written" {
		t.Errorf("server-filesystem's write in its root: %q, %v", b, err)
	}
	for _, path := range []string{filepath.Join(outside, "secret.txt"), filepath.Join(root, "link.txt")} {
		text, isErr := callTool(t, cs, "files__read_text_file", map[string]any{"path": path})
		if !isErr || strings.Contains(text, "outside the sandbox") || !strings.Contains(strings.ToLower(text), "permission denied") {
			t.Errorf("server-filesystem read %s (its own check allows it): %q (error %v), want the sandbox's EACCES", path, text, isErr)
		}
	}
}

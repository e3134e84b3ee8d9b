package main

import (
	"bytes"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/internal/testserver"
)

// exchangeBytes runs the start of a client's session at url over raw HTTP (initialize,
// notifications/initialized, tools/list) and returns the bytes of the initialize and tools/list
// responses it received, and the tools/list response.
func exchangeBytes(t *testing.T, url string) (initialize, list int, listed []byte) {
	t.Helper()
	sid := ""
	send := func(body string) []byte {
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode >= 300 {
			t.Fatalf("POST %s: %d %v\n%s", body, resp.StatusCode, err, b)
		}
		if sid == "" {
			sid = resp.Header.Get("Mcp-Session-Id")
		}
		return b
	}
	init := send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"measure","version":"1"}}}`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	tools := send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if !bytes.Contains(tools, []byte(`"tools"`)) {
		t.Fatalf("tools/list answered %s", tools)
	}
	return len(init), len(tools), tools
}

// The context a client is given at the start of a session, with the test bed's six reference
// servers behind one serve: initialize and tools/list in all mode (the pool's path) and in
// search mode (an agent's path over the same servers). It measures and prints; it asserts
// only the 90 % reduction search mode exists for, over a listing that holds every server (each
// given the time it needs to start: npmStartup).
func TestSearchModeListingBytes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bin := func(name string) string { return testserver.NPMBin(t, name) }
	writeFile(t, filepath.Join(dir, "agentpool.yaml"), `
mcp_servers:
  everything: {command: `+bin("mcp-server-everything")+`, `+npmStartup+`}
  memory:
    command: `+bin("mcp-server-memory")+`
    env: {MEMORY_FILE_PATH: `+filepath.Join(dir, "memory.jsonl")+`}
    `+npmStartup+`
  filesystem: {command: `+bin("mcp-server-filesystem")+`, args: [`+dir+`], `+npmStartup+`}
  thinking: {command: `+bin("mcp-server-sequential-thinking")+`, `+npmStartup+`}
  github:
    command: `+bin("mcp-server-github")+`
    env: {GITHUB_PERSONAL_ACCESS_TOKEN: dummy-token-for-listing}
    `+npmStartup+`
  playwright: {command: `+bin("playwright-mcp")+`, args: [--headless, --isolated], `+npmStartup+`}
agents:
  searching:
    tools: {mode: search}
`)
	url, _ := startServeHTTP(t, dir, "--no-default-roots", "--config", filepath.Join(dir, "agentpool.yaml"))
	allInit, allList, listed := exchangeBytes(t, url)
	for _, server := range []string{"everything", "memory", "filesystem", "thinking", "github", "playwright"} {
		if !bytes.Contains(listed, []byte(`"name":"`+server+`__`)) {
			t.Errorf("all mode lists no tool of %s: the measure would leave it out", server)
		}
	}
	tools := bytes.Count(listed, []byte(`"inputSchema"`))
	searchInit, searchList, _ := exchangeBytes(t, strings.TrimSuffix(url, "/mcp")+"/mcp/agents/searching")
	all, search := allInit+allList, searchInit+searchList
	reduction := 100 * float64(all-search) / float64(all)
	t.Logf("initialize + tools/list, %d tools: all %d bytes (%d + %d), search %d bytes (%d + %d): %.1f %% fewer", tools, all, allInit, allList, search, searchInit, searchList, reduction)
	if reduction < 90 {
		t.Errorf("search mode saves %.1f %%, want at least 90 %%", reduction)
	}
}

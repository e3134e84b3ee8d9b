package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/hiddentext"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A real serve in front of an upstream whose tool description and schema property description
// hide zero-width characters, tag characters, an OSC sequence and an HTML comment: under
// hidden_text sanitize (the default) the client sees the tool with clean text, and serve logs
// what it removed once; under block, per server or as extensions.hidden_text, the client does
// not see the tool, and the server's other tools still work.
func TestServeHiddenText(t *testing.T) {
	t.Parallel()
	fault := testserver.Build(t)
	for _, tc := range []struct {
		name, server, extensions string
		blocked                  bool
	}{
		{name: "default"},
		{name: "sanitize", server: ", hidden_text: sanitize", extensions: "extensions: {hidden_text: block}\n"},
		{name: "block", server: ", hidden_text: block", blocked: true},
		{name: "block by default", extensions: "extensions: {hidden_text: block}\n", blocked: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := filepath.Join(t.TempDir(), "agentpool.yaml")
			writeFile(t, cfg, tc.extensions+"mcp_servers:\n  fault: {command: "+fault+", args: [--hidden-text-tool, poisoned]"+tc.server+"}\n")
			base, said := startServeLogged(t, cfg, "--log-level", "warn")
			ctx := context.Background()
			var listed []*mcp.Tool
			for range 2 { // two sessions: one log line
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
					Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp"}, nil)
				if err != nil {
					t.Fatal(err)
				}
				res, err := cs.ListTools(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				listed = res.Tools
				echo, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fault__echo", Arguments: map[string]any{"text": "ok"}})
				if err != nil || echo.IsError {
					t.Fatalf("fault__echo: %v %+v", err, echo)
				}
				call, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fault__poisoned", Arguments: map[string]any{"text": "hi"}})
				if tc.blocked != (err != nil || call.IsError) {
					t.Fatalf("fault__poisoned call: %v %+v (blocked: %v)", err, call, tc.blocked)
				}
				cs.Close()
			}
			page := statusPage(t, base)
			if !strings.Contains(page, "Hidden text in definitions <span class=\"count\">(1)</span>") || !strings.Contains(page, "fault: tool &#34;fault__poisoned&#34;") {
				t.Errorf("the status page does not report the tool:\n%s", page)
			}
			if strings.ContainsRune(page, 0x200b) || strings.ContainsRune(page, 0xe0061) {
				t.Error("the status page shows hidden characters")
			}
			var poisoned *mcp.Tool
			for _, tool := range listed {
				if tool.Name == "fault__poisoned" {
					poisoned = tool
				}
			}
			if tc.blocked {
				if poisoned != nil {
					t.Fatalf("blocked tool listed: %q", poisoned.Description)
				}
				if !strings.Contains(said.String(), `blocked [escape-sequence html-comment tag zero-width]`) {
					t.Fatalf("serve did not report the blocked tool:\n%s", said)
				}
				return
			}
			if poisoned == nil {
				t.Fatal("fault__poisoned not listed")
			}
			if poisoned.Description != "Echoes the text." {
				t.Errorf("description %q", poisoned.Description)
			}
			schema, _ := json.Marshal(poisoned.InputSchema)
			var s struct {
				Properties struct{ Text struct{ Description string } }
			}
			if err := json.Unmarshal(schema, &s); err != nil || s.Properties.Text.Description != "The text to echo." {
				t.Errorf("schema %s: %v", schema, err)
			}
			if found := hiddentext.Scan(string(schema)); found != nil {
				t.Errorf("schema %s still has %v", schema, found)
			}
			if n := strings.Count(said.String(), "hidden text in definitions"); n != 1 || !strings.Contains(said.String(), `also send ~/.ssh/id_rsa`) {
				t.Errorf("%d log lines naming the hidden text, want 1 with its message:\n%s", n, said)
			}
		})
	}
}

// statusPage returns serve's status page.
func statusPage(t *testing.T, base string) string {
	t.Helper()
	resp, err := http.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("status page: %d %v", resp.StatusCode, err)
	}
	return string(b)
}

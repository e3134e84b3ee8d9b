package main

import (
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/oidctest"
)

// initMessage posts an initialize with token and returns the status and the response body.
func initMessage(t *testing.T, url, token string) (int, string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body) // the stream of an initialize ends with its answer
	return resp.StatusCode, string(b)
}

// With a real OpenID provider, server.max_sessions_per_user caps one subject's sessions: its
// next initialize gets a JSON-RPC error naming the key, while another subject still connects.
func TestServeSessionsPerUser(t *testing.T) {
	t.Parallel()
	p := oidctest.Start(t, &oidctest.Options{TokenTTL: time.Hour})
	cfg := filepath.Join(t.TempDir(), "agentpool.yaml")
	writeFile(t, cfg, "server:\n  max_sessions_per_user: 2\n  auth:\n    issuer: "+p.Issuer+"\n    scopes: [mcp]\n")
	_, url, _ := startServeIn(t, "", []string{"HOME=" + t.TempDir()}, "--no-default-roots", "--config", cfg, "serve", "--http", "127.0.0.1:0")
	alice, bob := p.UserToken(t, "alice", url, "mcp"), p.UserToken(t, "bob", url, "mcp")
	for i := range 2 {
		if status, body := initMessage(t, url, alice); status != http.StatusOK || strings.Contains(body, `"error"`) {
			t.Fatalf("alice's session %d: %d %s", i+1, status, body)
		}
	}
	if status, body := initMessage(t, url, alice); status != http.StatusOK || !strings.Contains(body, "server.max_sessions_per_user") {
		t.Errorf("alice's third session: %d %s, want a JSON-RPC error naming server.max_sessions_per_user", status, body)
	}
	if status, body := initMessage(t, url, bob); status != http.StatusOK || strings.Contains(body, `"error"`) {
		t.Errorf("bob while alice is at her cap: %d %s", status, body)
	}
}

package gateway_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/gateway"
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestOriginChecked: a browser page of a foreign origin gets 403 on every request; loopback
// origins on any port, configured origins and no origin at all pass.
func TestOriginChecked(t *testing.T) {
	f := newFixture(t, func(o *gateway.Options) { o.AllowedOrigins = []string{"https://app.example"} })
	for origin, want := range map[string]int{
		"http://evil.example":       http.StatusForbidden,
		"http://localhost.evil.com": http.StatusForbidden,
		"null":                      http.StatusForbidden,
		"http://localhost:3000":     http.StatusOK,
		"http://127.0.0.1:9":        http.StatusOK,
		"http://[::1]:8080":         http.StatusOK,
		"https://app.example":       http.StatusOK,
		"":                          http.StatusOK,
	} {
		hdr := map[string]string{}
		if origin != "" {
			hdr["Origin"] = origin
		}
		if status, _, _ := post(t, f.url, "", initBody, hdr); status != want {
			t.Errorf("initialize from origin %q: %d, want %d", origin, status, want)
		}
	}
	// Not only at initialize: a request of a live session from a foreign origin too.
	cs, _ := connect(t, f.url, nil)
	if status, _, _ := post(t, f.url, cs.ID(), `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`, map[string]string{"Origin": "http://evil.example"}); status != http.StatusForbidden {
		t.Errorf("tools/list from a foreign origin: %d, want 403", status)
	}
}

// bearer adds an Authorization header to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestTokenRequired: with a token set, a request without it or with another gets 401; a
// client that sends it works.
func TestTokenRequired(t *testing.T) {
	f := newFixture(t, func(o *gateway.Options) { o.Token = "s3cret" })
	if status, hdr, _ := post(t, f.url, "", initBody, nil); status != http.StatusUnauthorized || hdr.Get("WWW-Authenticate") == "" {
		t.Errorf("no token: %d %v, want 401 with WWW-Authenticate", status, hdr)
	}
	if status, _, _ := post(t, f.url, "", initBody, map[string]string{"Authorization": "Bearer s3cre"}); status != http.StatusUnauthorized {
		t.Errorf("wrong token: %d, want 401", status)
	}
	cs, _ := connect(t, f.url, &http.Client{Transport: bearer{"s3cret"}})
	if got := call(t, cs, "fault__echo", map[string]any{"text": "ok"}); got != "ok" {
		t.Errorf("echo with the token = %q", got)
	}
}

// TestBodyCapped: a body over the cap gets 413 with a JSON-RPC error, and the session that
// sent it stays usable.
func TestBodyCapped(t *testing.T) {
	f := newFixture(t, func(o *gateway.Options) { o.MaxBodyBytes = 4096 })
	cs, _ := connect(t, f.url, nil)
	big := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"fault__echo","arguments":{"text":"` + strings.Repeat("x", 5000) + `"}}}`
	status, _, msgs := post(t, f.url, cs.ID(), big, nil)
	if e := rpcError(msgs); status != http.StatusRequestEntityTooLarge || e == nil || !strings.Contains(e["message"].(string), "4096") {
		t.Errorf("oversized body: %d %v, want 413 with a JSON-RPC error naming the cap", status, msgs)
	}
	if got := call(t, cs, "fault__echo", map[string]any{"text": "small"}); got != "small" {
		t.Errorf("after the oversized body: echo = %q", got)
	}
}

// TestSessionCap: an initialize beyond MaxSessions fails with a clear error; the live
// session is not disturbed, and a place freed is taken again.
func TestSessionCap(t *testing.T) {
	f := newFixture(t, func(o *gateway.Options) { o.MaxSessions = 1 })
	a, _ := connect(t, f.url, nil)
	client := mcp.NewClient(&mcp.Implementation{Name: "second", Version: "1"}, nil)
	_, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: f.url}, nil)
	if err == nil || !strings.Contains(err.Error(), "too many sessions") {
		t.Fatalf("second session: %v, want a too-many-sessions error", err)
	}
	if got := call(t, a, "fault__echo", map[string]any{"text": "undisturbed"}); got != "undisturbed" {
		t.Errorf("first session: echo = %q", got)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	testwait.For(t, "the first session to end", func() bool { return f.g.Sessions() == 0 })
	b, _ := connect(t, f.url, nil)
	if got := call(t, b, "fault__echo", map[string]any{"text": "next"}); got != "next" {
		t.Errorf("a session after the first ended: echo = %q", got)
	}
}

// TestBadInput: malformed JSON-RPC, an unknown method, a request before initialize, an
// unknown prompt, tool or resource: each gets a JSON-RPC error and the session stays usable.
func TestBadInput(t *testing.T) {
	f := newFixture(t, nil)
	cs, _ := connect(t, f.url, nil)
	ctx := context.Background()

	if status, _, msgs := post(t, f.url, "", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, nil); status != http.StatusBadRequest || rpcError(msgs) == nil {
		t.Errorf("tools/list without a session: %d %v, want 400 with a JSON-RPC error", status, msgs)
	}
	if status, _, msgs := post(t, f.url, "", `{"jsonrpc":`, nil); status != http.StatusBadRequest || rpcError(msgs) == nil {
		t.Errorf("malformed initialize: %d %v, want 400 with a JSON-RPC error", status, msgs)
	}
	if n := f.g.Sessions(); n != 1 {
		t.Errorf("bad requests left %d sessions, want 1", n)
	}
	if status, _, msgs := post(t, f.url, cs.ID(), `{"jsonrpc":"2.0","id":7,`, nil); status != http.StatusBadRequest || rpcError(msgs) == nil || rpcError(msgs)["code"].(float64) != -32700 {
		t.Errorf("malformed JSON in a session: %d %v, want 400 with error -32700", status, msgs)
	}
	_, _, msgs := post(t, f.url, cs.ID(), `{"jsonrpc":"2.0","id":8,"method":"no/such/method"}`, nil)
	if e := rpcError(msgs); e == nil || e["code"].(float64) != -32601 {
		t.Errorf("unknown method: %v, want error -32601", msgs)
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "no-such-prompt"}); err == nil {
		t.Error("prompts/get of an unknown prompt succeeded")
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "no_such_tool"}); err == nil {
		t.Error("tools/call of an unknown tool succeeded")
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "nosuch://x"}); err == nil {
		t.Error("resources/read of an unknown scheme succeeded")
	}
	if got := call(t, cs, "fault__echo", map[string]any{"text": "usable"}); got != "usable" {
		t.Errorf("after the bad requests: echo = %q", got)
	}
}

package connpool

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/internal/oauthtest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawEcho passes an echo call through c and fails t unless it answers text.
func rawEcho(t *testing.T, c *Conn, text string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := c.CallRaw(ctx, "tools/call", json.RawMessage(`{"name":"echo","arguments":{"text":"`+text+`"}}`))
	if err != nil {
		t.Fatalf("passed-through call: %v", err)
	}
	var r mcp.CallToolResult
	if err := json.Unmarshal(res, &r); err != nil || len(r.Content) != 1 || r.Content[0].(*mcp.TextContent).Text != text {
		t.Fatalf("passed-through call: %s (%v)", res, err)
	}
}

// A call passed through carries what every request of the client carries: the configured
// headers, and the URL's user info and query that the go-sdk is given redacted.
func TestRawHTTPCarriesHeadersAndSecrets(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Text string `json:"text"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	var checked atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pw, _ := r.BasicAuth()
		if r.Header.Get("X-Token") != "secret" || r.URL.Query().Get("key") != "abc" || user != "me" || pw != "pw" {
			http.Error(w, "missing a header or a secret", http.StatusForbidden)
			return
		}
		checked.Add(1)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	p := newTestPool(t, nil)
	u := strings.Replace(ts.URL, "http://", "http://me:pw@", 1) + "/?key=abc"
	c := mustGet(t, p, ServerConfig{Name: "echo", Server: decl.Server{URL: u, Headers: map[string]string{"X-Token": "secret"}}}, GlobalPartition)
	defer p.Release(c)
	before := checked.Load()
	for range 3 {
		rawEcho(t, c, "hi")
	}
	if n := checked.Load() - before; n != 3 {
		t.Fatalf("the server checked %d passed-through calls, want 3", n)
	}
}

// A call passed through is authorized as the go-sdk's are: a token refused before its expiry
// is refreshed, and a 403 insufficient_scope asks for the wider scope, and the call goes
// through.
func TestRawHTTPAuthorized(t *testing.T) {
	f := oauthtest.New(t, time.Hour)
	f.StepUp = true
	p := newTestPool(t, nil)
	cfg := ServerConfig{Name: "step", Server: decl.Server{URL: f.URL + "/mcp", Auth: &decl.Auth{Type: GrantClientCredentials, ClientID: oauthtest.ClientID, ClientSecret: oauthtest.Secret}}}
	c := mustGet(t, p, cfg, "")
	defer p.Release(c)
	rawEcho(t, c, "up")
	f.RevokeAccess()
	rawEcho(t, c, "again")
}

package gateway_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/gateway"
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// isJSON reports whether a response was the pass-through path's (a JSON body) rather than the
// go-sdk's (an event stream).
func isJSON(h http.Header) bool { return strings.HasPrefix(h.Get("Content-Type"), "application/json") }

// connectPassing connects a go-sdk client and returns once its session passes calls through:
// the session starts to once the go-sdk has handled notifications/initialized, which it does
// after the client's POST of it was answered (202), so a call made at once may still take the
// go-sdk path.
func connectPassing(t *testing.T, url string) *mcp.ClientSession {
	t.Helper()
	cs, _ := connect(t, url, nil)
	testwait.For(t, "the session to pass calls through", func() bool {
		_, hdr, _ := post(t, url, cs.ID(), `{"jsonrpc":"2.0","id":"probe","method":"tools/call","params":{"name":"fault__echo","arguments":{"text":"probe"}}}`, nil)
		return isJSON(hdr)
	})
	return cs
}

// TestPassThroughAnswersTheCall: a tools/call of a stdio upstream's tool is answered with the
// upstream's result under the client's own id, string or number, as a JSON body; the session's
// go-sdk client is unaffected.
func TestPassThroughAnswersTheCall(t *testing.T) {
	f := newFixture(t, nil)
	cs := connectPassing(t, f.url)
	for _, id := range []string{`"abc"`, `42`, `-7`, `"é\"x"`} {
		status, hdr, msgs := post(t, f.url, cs.ID(), `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"fault__echo","arguments":{"text":"hi"}}}`, nil)
		if status != http.StatusOK || !isJSON(hdr) || len(msgs) != 1 {
			t.Fatalf("id %s: %d %v %v", id, status, hdr, msgs)
		}
		if got := fmt.Sprint(msgs[0]["id"]); got != strings.Trim(strings.ReplaceAll(id, `\"`, `"`), `"`) {
			t.Errorf("id %s answered as %v", id, msgs[0]["id"])
		}
		res, _ := msgs[0]["result"].(map[string]any)
		content, _ := res["content"].([]any)
		if len(content) != 1 || content[0].(map[string]any)["text"] != "hi" {
			t.Errorf("id %s: result %v", id, msgs[0])
		}
	}
	if got := call(t, cs, "fault__echo", map[string]any{"text": "sdk"}); got != "sdk" {
		t.Errorf("the session's own client: %q", got)
	}
	// What the pass-through path does not serve is the go-sdk's, as before: an unknown tool,
	// a tool that is not an upstream's (load_skill), a batch.
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"nope"}}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"load_skill","arguments":{"name":"greet"}}}`,
	} {
		if _, hdr, msgs := post(t, f.url, cs.ID(), body, nil); isJSON(hdr) || len(msgs) != 1 {
			t.Errorf("%s: answered %v %v, want the go-sdk's event stream", body, hdr, msgs)
		}
	}
}

// TestPassThroughOnlyAlone: a call that needs more than its answer takes the go-sdk path: one
// with a progress token, one of a client that set a log level, one of a client that can be
// asked for sampling (the upstream's request would travel on the call's stream).
func TestPassThroughOnlyAlone(t *testing.T) {
	f := newFixture(t, nil)
	echo := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fault__echo","arguments":{"text":"x"}%s}}`
	cs := connectPassing(t, f.url)
	if _, hdr, _ := post(t, f.url, cs.ID(), fmt.Sprintf(echo, ""), nil); !isJSON(hdr) {
		t.Fatal("a plain call was not passed through")
	}
	if _, hdr, msgs := post(t, f.url, cs.ID(), fmt.Sprintf(echo, `,"_meta":{"progressToken":"p1"}`), nil); isJSON(hdr) || len(msgs) == 0 {
		t.Errorf("a call with a progress token passed through: %v", msgs)
	}
	if err := cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	if _, hdr, _ := post(t, f.url, cs.ID(), fmt.Sprintf(echo, ""), nil); isJSON(hdr) {
		t.Error("a call of a session with a log level passed through")
	}
	sampler := mcp.NewClient(&mcp.Implementation{Name: "sampler", Version: "1"}, &mcp.ClientOptions{
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Content: &mcp.TextContent{Text: "sampled"}, Model: "m", Role: "assistant"}, nil
		}})
	ss, err := sampler.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: f.url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	if _, hdr, _ := post(t, f.url, ss.ID(), fmt.Sprintf(echo, ""), nil); isJSON(hdr) {
		t.Error("a call of a client that declared sampling passed through")
	}
	res, err := ss.CallTool(context.Background(), &mcp.CallToolParams{Name: "fault__sample", Arguments: map[string]any{"text": "q"}})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "sampled" {
		t.Errorf("sampling through the gateway: %v %+v", err, res)
	}
}

// TestPassThroughCancelled: the client's notifications/cancelled for a passed-through call
// cancels it upstream (the server logs it), and the session goes on.
func TestPassThroughCancelled(t *testing.T) {
	log := filepath.Join(t.TempDir(), "calls.log")
	f := newFixtureArgs(t, nil, "--log", log)
	cs := connectPassing(t, f.url)
	pid := call(t, cs, "fault__pid", map[string]any{})
	done := make(chan int, 1)
	go func() {
		status, _, _ := post(t, f.url, cs.ID(), `{"jsonrpc":"2.0","id":"slow-1","method":"tools/call","params":{"name":"fault__sleep","arguments":{"ms":30000}}}`, nil)
		done <- status
	}()
	testwait.For(t, "the sleep to begin", func() bool {
		b, _ := os.ReadFile(log)
		return strings.Contains(string(b), "begin "+pid)
	})
	if status, _, _ := post(t, f.url, cs.ID(), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow-1","reason":"user"}}`, nil); status != http.StatusAccepted {
		t.Errorf("cancel: %d", status)
	}
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the cancelled call's request did not end")
	}
	testwait.For(t, "the server to log the cancellation", func() bool {
		b, _ := os.ReadFile(log)
		return strings.Contains(string(b), "cancelled "+pid)
	})
	if got := call(t, cs, "fault__pid", map[string]any{}); got != pid {
		t.Errorf("after the cancel: pid %s, was %s", got, pid)
	}
}

// TestPassThroughIsActivity: a session busy only with passed-through calls is not ended by the
// idle timeout (those calls never reach the go-sdk's handler, whose timer this was).
func TestPassThroughIsActivity(t *testing.T) {
	f := newFixture(t, func(o *gateway.Options) { o.IdleTimeout = 300 * time.Millisecond })
	cs := connectPassing(t, f.url)
	sid := cs.ID()
	end := time.Now().Add(1500 * time.Millisecond)
	for i := 0; time.Now().Before(end); i++ {
		status, hdr, msgs := post(t, f.url, sid, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"fault__sleep","arguments":{"ms":200}}}`, i), nil)
		if status != http.StatusOK || !isJSON(hdr) || rpcError(msgs) != nil || len(msgs) != 1 {
			t.Fatalf("call %d of a busy session: %d %v", i, status, msgs)
		}
	}
}

// TestPassThroughCancelAfterLevelSet: a passed-through call stays cancellable by the client's
// notifications/cancelled after the session stopped passing calls through (the client set a
// log level while the call ran): the cancel reaches the call, not the go-sdk, which knows
// nothing of it.
func TestPassThroughCancelAfterLevelSet(t *testing.T) {
	log := filepath.Join(t.TempDir(), "calls.log")
	f := newFixtureArgs(t, nil, "--log", log)
	cs := connectPassing(t, f.url)
	pid := call(t, cs, "fault__pid", map[string]any{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		status, _, msgs := post(t, f.url, cs.ID(), `{"jsonrpc":"2.0","id":"slow-2","method":"tools/call","params":{"name":"fault__sleep","arguments":{"ms":60000}}}`, nil)
		if status != http.StatusAccepted || len(msgs) != 0 {
			t.Errorf("the cancelled call answered %d %v, want 202 and nothing", status, msgs)
		}
	}()
	testwait.For(t, "the sleep to begin", func() bool {
		b, _ := os.ReadFile(log)
		return strings.Contains(string(b), "begin "+pid)
	})
	if err := cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	if status, _, _ := post(t, f.url, cs.ID(), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow-2"}}`, nil); status != http.StatusAccepted {
		t.Errorf("cancel: %d", status)
	}
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the cancelled call's request did not end")
	}
	testwait.For(t, "the server to log the cancellation", func() bool {
		b, _ := os.ReadFile(log)
		return strings.Contains(string(b), "cancelled "+pid)
	})
}

// TestPassThroughEndsWithSession: once a client DELETEd its session, a call with the session's
// id is answered 404 as by the go-sdk, not passed through, and a passed-through call still
// running is cancelled upstream, though the session's end is still under way (its
// CloseSession held here, which keeps the session's server running).
func TestPassThroughEndsWithSession(t *testing.T) {
	log := filepath.Join(t.TempDir(), "calls.log")
	release := make(chan struct{})
	f := newFixtureArgs(t, func(o *gateway.Options) {
		closeSession := o.CloseSession
		o.CloseTimeout = time.Minute
		o.CloseSession = func(ctx context.Context, id string) error {
			select {
			case <-release:
			case <-ctx.Done():
			}
			return closeSession(ctx, id)
		}
	}, "--log", log)
	t.Cleanup(func() { close(release) }) // before the fixture's cleanup
	cs := connectPassing(t, f.url)
	sid := cs.ID()
	pid := call(t, cs, "fault__pid", map[string]any{})
	done := make(chan int, 1)
	go func() {
		status, _, _ := post(t, f.url, sid, `{"jsonrpc":"2.0","id":"slow-3","method":"tools/call","params":{"name":"fault__sleep","arguments":{"ms":60000}}}`, nil)
		done <- status
	}()
	testwait.For(t, "the sleep to begin", func() bool {
		b, _ := os.ReadFile(log)
		return strings.Contains(string(b), "begin "+pid)
	})
	req, err := http.NewRequest(http.MethodDelete, f.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %d", resp.StatusCode)
	}
	status, hdr, msgs := post(t, f.url, sid, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"fault__echo","arguments":{"text":"late"}}}`, nil)
	if status != http.StatusNotFound {
		t.Errorf("a call in the DELETEd session: %d %v %v, want 404", status, hdr, msgs)
	}
	select {
	case status := <-done:
		if status == http.StatusOK {
			t.Errorf("the call running at the DELETE answered %d", status)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the call running at the DELETE did not end")
	}
	testwait.For(t, "the server to log the cancellation", func() bool {
		b, _ := os.ReadFile(log)
		return strings.Contains(string(b), "cancelled "+pid)
	})
}

// TestPassThroughKeepsProtocolChecks: a call the go-sdk refuses for its protocol version — an
// Mcp-Protocol-Version header the gateway does not support, a 2026-07-28 one, a per-request
// _meta version (SEP-2575) — is refused as before (400), not passed through.
func TestPassThroughKeepsProtocolChecks(t *testing.T) {
	f := newFixture(t, nil)
	cs := connectPassing(t, f.url)
	echo := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fault__echo","arguments":{"text":"x"}%s}}`
	if status, hdr, _ := post(t, f.url, cs.ID(), fmt.Sprintf(echo, ""), nil); status != http.StatusOK || !isJSON(hdr) {
		t.Fatalf("a plain call was not passed through: %d %v", status, hdr)
	}
	for _, c := range []struct{ version, meta string }{
		{"1999-01-01", ""},
		{"2026-07-28", ""},
		{"2025-06-18", `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`},
	} {
		status, _, msgs := post(t, f.url, cs.ID(), fmt.Sprintf(echo, c.meta), map[string]string{"Mcp-Protocol-Version": c.version})
		if status != http.StatusBadRequest || rpcError(msgs) == nil {
			t.Errorf("version %s %s: %d %v, want 400 and a JSON-RPC error", c.version, c.meta, status, msgs)
		}
	}
}

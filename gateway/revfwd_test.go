package gateway_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/gateway"
	"github.com/agentpool/agentpool/host"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The gateway agrees to 2025-11-25 at most, for every request and on every transport: over
// stdio (which, unlike streamable HTTP, the go-sdk lets serve any version) a request that asks
// for the 2026-07-28 protocol in its _meta (SEP-2575's per-request form) is refused, not served
// under a protocol whose server-to-client requests the gateway does not forward.
func TestPerRequestNewProtocolRefusedOverStdio(t *testing.T) {
	f := newFixture(t, nil)
	cr, sw := io.Pipe() // server → client
	sr, cw := io.Pipe() // client → server
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- f.g.Serve(ctx, &mcp.IOTransport{Reader: sr, Writer: sw})
		_ = sw.Close()
	}()
	defer func() { cancel(); _ = cw.Close(); <-served }()
	in := bufio.NewScanner(cr)
	in.Buffer(nil, 1<<20)
	send := func(s string) {
		if _, err := io.WriteString(cw, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	answer := func(id float64) map[string]any {
		for in.Scan() {
			var m map[string]any
			if json.Unmarshal(in.Bytes(), &m) == nil && m["id"] == id {
				return m
			}
		}
		t.Fatalf("no answer to %v", id)
		return nil
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	answer(1)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{%q:"2026-07-28",%q:{}}}}`,
		"io.modelcontextprotocol/protocolVersion", "io.modelcontextprotocol/clientCapabilities"))
	got := answer(2)
	e, _ := got["error"].(map[string]any)
	if code, _ := e["code"].(float64); code != mcp.CodeUnsupportedProtocolVersion {
		t.Errorf("tools/list asking for 2026-07-28: %v, want error %d (unsupported protocol version)", got, mcp.CodeUnsupportedProtocolVersion)
	}
}

// A session's own server that asks for the client's roots as soon as it is initialized,
// before any call (as the reference filesystem server does), is answered by that session's
// client: a session-scoped server has one client, known from its start.
func TestSessionServerRequestBeforeAnyCall(t *testing.T) {
	bin := testserver.Build(t)
	logFile := filepath.Join(t.TempDir(), "own.log")
	_, srv := revGateway(t, "mcp_servers:\n"+
		"  own: {command: "+bin+", args: [--roots-at-start, --log, "+logFile+"], scope: session}\n", nil)
	fwdClient(t, srv.URL, "alice")
	testwait.For(t, "the server's roots request to be answered", func() bool { return logHas(logFile, "roots-at-start") })
	if lines := strings.Join(logLines(logFile), " "); !strings.Contains(lines, "roots-at-start file:///alice") {
		t.Errorf("the session's server asked for roots before any call and got %q, want alice's roots", lines)
	}
}

// revGateway serves a host of yaml through a gateway over real HTTP.
func revGateway(t *testing.T, yaml string, set func(*gateway.Options)) (*gateway.Gateway, *httptest.Server) {
	t.Helper()
	g, srv, _ := serveHost(t, yaml, host.Options{}, set)
	return g, srv
}

// A client that stops reading its stream while a shared server logs (the gateway's writes to
// it block) is still ended by DELETE: its outbox, stuck in a write, does not hold the end of
// the session (CloseSession, the registry's scope) beyond the close bound.
func TestStuckClientSessionEnds(t *testing.T) {
	// The bound applies to bob's answers too, and a loaded machine can leave bob's goroutine
	// unscheduled for seconds (5.9 s measured at load 15): a bound of 1 s cut bob's connection.
	defer gateway.SetWriteStall(5 * time.Second)()
	bin := testserver.Build(t)
	g, srv := revGateway(t, "mcp_servers:\n  pool: {command: "+bin+"}\n", func(o *gateway.Options) { o.CloseTimeout = 2 * time.Second })
	_, h, _ := post(t, srv.URL, "", initBody, nil)
	sid := h.Get("Mcp-Session-Id")
	post(t, srv.URL, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil)
	post(t, srv.URL, sid, `{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"debug"}}`, nil)
	// The stuck client's stream: a GET whose response is never read.
	nc, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	fmt.Fprintf(nc, "GET / HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\nMcp-Session-Id: %s\r\nMcp-Protocol-Version: 2025-06-18\r\n\r\n", srv.Listener.Addr(), sid)

	b, _ := fwdClient(t, srv.URL, "bob")
	big := strings.Repeat("x", 60<<10)
	for range 400 { // far more than the socket buffers hold
		callResult(t, context.Background(), b, "pool__log", map[string]any{"level": "info", "text": big})
	}
	req, _ := http.NewRequest(http.MethodDelete, srv.URL, nil)
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	hc := &http.Client{Timeout: 20 * time.Second} // a liveness bound, not a timing claim
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("DELETE of the stuck client's session: %v", err)
	}
	resp.Body.Close()
	testwait.For(t, "the stuck client's session to end", func() bool { return g.Sessions() == 1 })
}

// Sessions that end without unsubscribing give their subscriptions back: once the last
// subscribed session has gone, the shared server is unsubscribed.
func TestSubscriptionsGivenBackAtSessionEnd(t *testing.T) {
	f := newFwdFixture(t)
	const uri = "test://static/hello"
	ctx := context.Background()
	a, _ := fwdClient(t, f.url, "alice")
	b, _ := fwdClient(t, f.url, "bob")
	for _, cs := range []*mcp.ClientSession{a, b} {
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
	}
	_ = a.Close()
	callResult(t, ctx, b, "pool__pid", map[string]any{}) // alice's end has had time to run
	if logHas(f.poolLog, "unsubscribe") {
		t.Error("the server was unsubscribed while bob still holds the subscription")
	}
	_ = b.Close()
	testwait.For(t, "the server to be unsubscribed after both sessions ended", func() bool { return logHas(f.poolLog, "unsubscribe "+uri) })
}

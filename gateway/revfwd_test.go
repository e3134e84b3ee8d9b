package gateway_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/gateway"
	"github.com/agentpool/agentpool/host"
	"github.com/agentpool/agentpool/internal/testserver"
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
	dir := t.TempDir()
	logFile := filepath.Join(dir, "own.log")
	cfg, err := config.Parse(filepath.Join(dir, "agentpool.yaml"), []byte("mcp_servers:\n"+
		"  own: {command: "+bin+", args: [--roots-at-start, --log, "+logFile+"], scope: session}\n"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.Build(context.Background(), cfg, host.Options{ProjectDir: dir, HomeDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	g, err := gateway.New(gateway.Options{Registry: h.Registry, OpenSession: h.OpenSession, CloseSession: h.CloseSession})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(g.Handler())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := g.Close(ctx); err != nil {
			t.Errorf("gateway close: %v", err)
		}
		srv.Close()
		if err := h.Close(ctx); err != nil {
			t.Errorf("host close: %v", err)
		}
	})
	fwdClient(t, srv.URL, "alice")
	waitFor(t, "the server's roots request to be answered", func() bool { return logHas(logFile, "roots-at-start") })
	if lines := strings.Join(logLines(logFile), " "); !strings.Contains(lines, "roots-at-start file:///alice") {
		t.Errorf("the session's server asked for roots before any call and got %q, want alice's roots", lines)
	}
}

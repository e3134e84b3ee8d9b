package mcpcap

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestCallToolRawIsCallTool: on a pooled stdio connection CallToolRaw returns what CallTool
// does — a result, a tool-level error result, or an error — with the result as the server's JSON.
func TestCallToolRawIsCallTool(t *testing.T) {
	bin := testserver.Build(t)
	p := newPool(t)
	c := newPoolCap(t, p, "", Config{Name: "fault", Server: connpool.ServerConfig{Server: decl.Server{Command: bin}}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, call := range []*ext.ToolCall{
		{Name: "echo", Arguments: json.RawMessage(`{"text":"héllo \"x\""}`)},
		{Name: "echo", Arguments: json.RawMessage(`{"text":"m"}`), Meta: json.RawMessage(`{"k":"v"}`)},
		{Name: "echo", Arguments: json.RawMessage(`{"text":7}`)}, // invalid arguments
		{Name: "echo", Arguments: json.RawMessage(`[1]`)},        // not an object
	} {
		want, werr := c.CallTool(ctx, call)
		data, err := c.CallToolRaw(ctx, call)
		if (werr == nil) != (err == nil) {
			t.Fatalf("%s %s: CallTool err %v, CallToolRaw err %v", call.Name, call.Arguments, werr, err)
		}
		if err != nil {
			continue
		}
		var res mcp.CallToolResult
		if err := json.Unmarshal(data, &res); err != nil {
			t.Fatalf("raw result %s: %v", data, err)
		}
		if d := cmp.Diff(want, toolResult(&res)); d != "" {
			t.Errorf("%s %s: raw differs from CallTool (-want +raw):\n%s", call.Name, call.Arguments, d)
		}
	}
}

// TestCallToolRawCancellation: cancelling a passed-through call cancels it on the server,
// which logs it, and the connection is reused.
func TestCallToolRawCancellation(t *testing.T) { testCancellation(t, true) }

// TestKill9WithRawCallsInFlight is TestKill9WithCallsInFlight with passed-through calls: the
// retry rules hold for them (read-only retried, non-idempotent at most once, no hang).
func TestKill9WithRawCallsInFlight(t *testing.T) {
	bin := testserver.Build(t)
	log := filepath.Join(t.TempDir(), "calls.log")
	p := newPool(t)
	c := newPoolCap(t, p, "", Config{Name: "fault",
		Server: connpool.ServerConfig{Server: decl.Server{Command: bin, Args: []string{"--log", log, "--call-delay", "300ms"}}},
		Retry:  decl.Retry{Attempts: 3, Backoff: 20 * time.Millisecond}})
	k := &killer{t: t, c: c, log: log, settle: 100 * time.Millisecond, raw: true}
	for cycle := 0; cycle < 3; cycle++ {
		k.cycle(cycle)
	}
}

// TestCallToolRawHTTP: over streamable HTTP, CallToolRaw returns what CallTool does, and a
// cancelled call is cancelled on the server.
func TestCallToolRawHTTP(t *testing.T) {
	log := filepath.Join(t.TempDir(), "calls.log")
	srv := startHTTPFaultserver(t, "127.0.0.1:0", "--log", log)
	p := newPool(t)
	c := newPoolCap(t, p, "", Config{Name: "web", Server: connpool.ServerConfig{Server: decl.Server{Type: connpool.TypeStreamableHTTP, URL: srv.url}}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, args := range []string{`{"text":"héllo"}`, `{"text":7}`} {
		call := &ext.ToolCall{Name: "echo", Arguments: json.RawMessage(args)}
		want, werr := c.CallTool(ctx, call)
		got, err := callAs(ctx, c, true, "echo", args)
		if (werr == nil) != (err == nil) {
			t.Fatalf("%s: CallTool err %v, CallToolRaw err %v", args, werr, err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: raw differs from CallTool (-want +raw):\n%s", args, d)
		}
	}
	pid := callText(t, c, "pid", `{}`)
	cctx, ccancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := c.CallToolRaw(cctx, &ext.ToolCall{Name: "sleep", Arguments: json.RawMessage(`{"ms":30000}`)})
		errc <- err
	}()
	testwait.For(t, "the sleep to begin on the server", func() bool { return countLines(t, log, "begin "+pid) == 1 })
	ccancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call: %v", err)
	}
	testwait.For(t, "server logs the cancellation", func() bool { return countLines(t, log, "cancelled "+pid) == 1 })
}

// TestRawParams: the params of a passed-through call are one line of valid JSON whatever the
// arguments' whitespace, and carry _meta when there is one.
func TestRawParams(t *testing.T) {
	for _, c := range []struct {
		r    toolRequest
		want string
	}{
		{toolRequest{name: "echo"}, `{"name":"echo"}`},
		{toolRequest{name: `e"x`, args: json.RawMessage(`{"a": 1}`)}, `{"name":"e\"x","arguments":{"a": 1}}`},
		{toolRequest{name: "a<b>&\\é\x01"}, `{"name":"a\u003cb\u003e\u0026\\é\u0001"}`},
		{toolRequest{name: "echo", args: json.RawMessage("{\n  \"a\": \"b\\nc\"\r\n}")}, `{"name":"echo","arguments":{"a":"b\nc"}}`},
		{toolRequest{name: "echo", meta: mcp.Meta{"k": "v"}, args: json.RawMessage(`{}`)}, `{"_meta":{"k":"v"},"name":"echo","arguments":{}}`},
	} {
		got, err := appendRawParams([]byte("kept"), &c.r)
		if err != nil || string(got) != "kept"+c.want {
			t.Errorf("%+v: %s, %v; want kept%s", c.r, got, err, c.want)
		}
	}
	if _, err := appendRawParams(nil, &toolRequest{name: "echo", args: json.RawMessage(`{"a":`)}); err == nil {
		t.Error("invalid arguments encoded")
	}
}

package gateway_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/gateway"
	"github.com/agentpool/agentpool/internal/testwait"
)

// panicCap is echoCap whose passed-through call of the text "boom" panics.
type panicCap struct{ echoCap }

func (c panicCap) CallToolRaw(ctx context.Context, call *ext.ToolCall) (json.RawMessage, error) {
	if strings.Contains(string(call.Arguments), "boom") {
		panic("boom")
	}
	return c.echoCap.CallToolRaw(ctx, call)
}

// A call on the lane that panics ends its connection (lane) and gives back what it held of
// its session, as the same call on net/http does (its handler's defers): here the one call
// Options.MaxInflight allows, which the session's next call needs.
func TestLanePanickedCallReleasesItsSession(t *testing.T) {
	reg := ext.NewRegistry(nil)
	if err := reg.Register(panicCap{}, ext.LevelPool, ext.Scope{}); err != nil {
		t.Fatal(err)
	}
	g, err := gateway.New(gateway.Options{Registry: reg, MaxInflight: 1})
	if err != nil {
		t.Fatal(err)
	}
	ls := serveGatewayLane(t, g, reg.Close)
	_, hdr, _ := post(t, ls.url, "", initBody, nil)
	sid := hdr.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatal("initialize: no session")
	}
	post(t, ls.url, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil)
	const echo = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"%s"}}}`
	testwait.For(t, "the session to pass calls through", func() bool {
		_, hdr, _ := post(t, ls.url, sid, strings.Replace(echo, "%s", "probe", 1), nil)
		return isJSON(hdr)
	})
	nc, err := net.Dial("tcp", ls.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	br := bufio.NewReader(nc)
	call := func(text string) string {
		body := strings.Replace(echo, "%s", text, 1)
		return "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" +
			"Mcp-Protocol-Version: 2025-06-18\r\nMcp-Session-Id: " + sid + "\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
	}
	if _, err := io.WriteString(nc, call("first")); err != nil {
		t.Fatal(err)
	}
	if st, body := laneAnswer(t, br); st != http.StatusOK || !strings.Contains(body, "first") {
		t.Fatalf("first call: %d %s", st, body)
	}
	if _, err := io.WriteString(nc, call("boom")); err != nil { // on the lane
		t.Fatal(err)
	}
	_ = nc.SetReadDeadline(time.Now().Add(time.Minute))
	if b, err := io.ReadAll(br); len(b) > 0 {
		t.Fatalf("the call that panicked was answered: %q %v", b, err)
	}
	_, _, msgs := post(t, ls.url, sid, strings.Replace(echo, "%s", "after", 1), nil)
	if len(msgs) != 1 || msgs[0]["error"] != nil {
		t.Fatalf("the session's next call: %v", msgs)
	}
}

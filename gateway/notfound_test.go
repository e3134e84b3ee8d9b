package gateway_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/gateway"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A resources/read of a URI nothing serves is answered with the SDK's resource-not-found error whatever bytes the URI
// holds (DEL, ESC, invalid UTF-8, a line separator), and the session stays usable.
func TestResourceNotFoundAnyURI(t *testing.T) {
	reg := ext.NewRegistry(nil)
	if err := reg.Register(echoCap{}, ext.LevelPool, ext.Scope{}); err != nil {
		t.Fatal(err)
	}
	g, err := gateway.New(gateway.Options{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = g.Close(ctx)
		_ = reg.Close(ctx)
	})
	h := g.Handler()
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(initBody))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	sid := rec.Header().Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatalf("initialize: %d %s", rec.Code, rec.Body)
	}
	rawPost(h, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	for i, uri := range []string{"skill://a/\x7ftc", "skill://a/\x1b]0;x\x07", "skill://\x80/x", "nosuch://a/\u2028b", `skill://a/"q\`} {
		s, _ := json.Marshal(uri)
		body := `{"jsonrpc":"2.0","id":` + string(rune('1'+i)) + `,"method":"resources/read","params":{"uri":` + string(s) + `}}`
		_, _, msgs, ok := rawPost(h, sid, body)
		if !ok || len(msgs) != 1 || msgs[0].Error == nil || *msgs[0].Error.Code != mcp.CodeResourceNotFound {
			t.Errorf("resources/read %q: ok=%v, %d messages, want one error %d", uri, ok, len(msgs), mcp.CodeResourceNotFound)
			if len(msgs) == 1 && msgs[0].Error != nil {
				t.Logf("error: %d %s", *msgs[0].Error.Code, *msgs[0].Error.Message)
			}
		}
		st, _, msgs, _ := rawPost(h, sid, `{"jsonrpc":"2.0","id":"after","method":"ping"}`)
		if st != http.StatusOK || len(msgs) != 1 || msgs[0].Error != nil {
			t.Fatalf("after resources/read %q: ping answered %d with %d messages", uri, st, len(msgs))
		}
	}
}

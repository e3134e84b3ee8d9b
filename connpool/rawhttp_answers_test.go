package connpool

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestRawHTTPBadAnswers: whatever a streamable HTTP server answers a passed-through call, the
// caller gets the result or an error saying what was wrong — never a hang, never a result
// that is not the call's.
func TestRawHTTPBadAnswers(t *testing.T) {
	const id = rawIDPrefix + "1"
	for _, c := range []struct {
		name, ctype, body string
		status            int
		want              string // in the error; "" means the result {"ok":true}
	}{
		{"json", "application/json", `{"jsonrpc":"2.0","id":"` + id + `","result":{"ok":true}}`, 200, ""},
		{"event stream", "text/event-stream", "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"" + id + "\",\"result\":{\"ok\":true}}\n\n", 200, ""},
		{"not json", "application/json", `<html>oops</html>`, 200, "invalid JSON-RPC message"},
		{"another id", "application/json", `{"jsonrpc":"2.0","id":"other","result":{}}`, 200, "does not answer request"},
		{"neither result nor error", "application/json", `{"jsonrpc":"2.0","id":"` + id + `"}`, 200, "neither result nor error"},
		{"stream ends first", "text/event-stream", "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n", 200, "ended before the answer"},
		{"plain text", "text/plain", "hello", 200, `unexpected content type "text/plain"`},
		{"server error", "text/plain", "boom", 500, "HTTP 500: boom"},
		{"error answer", "application/json", `{"jsonrpc":"2.0","id":"` + id + `","error":{"code":-32602,"message":"bad args"}}`, 200, "bad args"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", c.ctype)
				w.WriteHeader(c.status)
				io.WriteString(w, c.body)
			}))
			defer srv.Close()
			h := &rawHTTP{hc: srv.Client(), endpoint: srv.URL, c: &client{}, life: context.Background()}
			res, err := h.call(context.Background(), "tools/call", []byte(`{"name":"x"}`))
			if c.want == "" {
				if err != nil || string(res) != `{"ok":true}` {
					t.Fatalf("%s, %v", res, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("%s, %v; want an error saying %q", res, err, c.want)
			}
			var we *jsonrpc.Error
			if c.name == "error answer" && !errors.As(err, &we) {
				t.Errorf("the server's error is not a *jsonrpc.Error: %v", err)
			}
		})
	}
}

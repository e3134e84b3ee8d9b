package gateway_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/internal/testwait"
)

// rawSession opens a session with raw POSTs, declaring capabilities (JSON), and returns its id.
func rawSession(t *testing.T, url, capabilities string) string {
	t.Helper()
	status, hdr, msgs := post(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":`+capabilities+`,"clientInfo":{"name":"raw","version":"1"}}}`, nil)
	sid := hdr.Get("Mcp-Session-Id")
	if status != http.StatusOK || sid == "" || rpcError(msgs) != nil {
		t.Fatalf("initialize: %d %v %v", status, hdr, msgs)
	}
	post(t, url, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil)
	return sid
}

// startPost sends a POST of session sid that the caller may drop (cancel), and returns the
// response's body as lines, read on a goroutine of its own; the channel closes at its end.
func startPost(t *testing.T, ctx context.Context, url, sid, body string) <-chan string {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	lines := make(chan string, 64)
	go func() {
		defer close(lines)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return
		}
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
		_, _ = io.Copy(io.Discard, resp.Body)
	}()
	return lines
}

// A call on the go-sdk path (it carries a progress token) is cancelled upstream when its
// session is deleted and when its client drops the connection, as a call passed through is:
// the pool's server logs the cancellation, not the sleep's end.
func TestSDKPathCallEndsWithItsClient(t *testing.T) {
	f := newFwdFixture(t)
	sleep := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"pool__sleep","arguments":{"ms":600000},"_meta":{"progressToken":"p7"}}}`
	for i, c := range []struct {
		name string
		end  func(sid string, drop context.CancelFunc)
	}{
		{"DELETE", func(sid string, drop context.CancelFunc) { deleteSession(t, f.url, sid) }},
		{"dropped connection", func(sid string, drop context.CancelFunc) { drop() }},
	} {
		t.Run(c.name, func(t *testing.T) {
			sid := rawSession(t, f.url, `{}`)
			ctx, drop := context.WithCancel(context.Background())
			defer drop()
			lines := startPost(t, ctx, f.url, sid, sleep)
			testwait.For(t, "the sleep to begin upstream", func() bool { return strings.Count(strings.Join(logLines(f.poolLog), " "), "begin") == i+1 })
			c.end(sid, drop)
			testwait.For(t, "the upstream call to be cancelled", func() bool {
				return strings.Count(strings.Join(logLines(f.poolLog), " "), "cancelled") == i+1
			})
			for range lines {
			}
		})
	}
	if logHas(f.poolLog, "done") {
		t.Error("a sleep ran to its end upstream")
	}
}

// deleteSession ends session sid with DELETE.
func deleteSession(t *testing.T, url, sid string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodDelete, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Mcp-Session-Id", sid)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("DELETE: %d", resp.StatusCode)
	}
}

// A client that declared sampling and is gone while the pool's server waits for its answer
// (it dropped the call's connection) holds nobody up: the call ends upstream, and another
// client's call to that server may sample at once.
func TestGoneSamplerLocksNoOtherClientOut(t *testing.T) {
	f := newFwdFixture(t)
	b, _ := fwdClient(t, f.url, "bob")
	sid := rawSession(t, f.url, `{"sampling":{}}`)
	ctx, drop := context.WithCancel(context.Background())
	defer drop()
	lines := startPost(t, ctx, f.url, sid, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"pool__sample","arguments":{"text":"q"}}}`)
	for l := range lines {
		if strings.Contains(l, "sampling/createMessage") {
			break
		}
	}
	drop() // the client is killed, its sampling request unanswered
	for range lines {
	}
	testwait.For(t, "bob's call to sample once the gone client's call ended", func() bool {
		got, isErr := callResult(t, context.Background(), b, "pool__sample", map[string]any{"text": "hi"})
		return !isErr && got == "bob says: hi"
	})
}

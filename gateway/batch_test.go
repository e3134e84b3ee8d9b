package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentpool/agentpool/gateway"
	"github.com/agentpool/agentpool/internal/testwait"
)

// postBody sends one raw POST with the headers a streamable client sends (sid and version
// when not empty) and returns the status, the session header and the body.
func postBody(t *testing.T, url, sid, version, body string) (int, string, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	if version != "" {
		req.Header.Set("Mcp-Protocol-Version", version)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), data
}

// batchAnswer decodes a batch's answer, failing the test when it is not a JSON array.
func batchAnswer(t *testing.T, what string, data []byte) []map[string]any {
	t.Helper()
	var msgs []map[string]any
	if err := json.Unmarshal(data, &msgs); err != nil {
		t.Fatalf("%s: answer is not a JSON array (%v): %.300s", what, err, data)
	}
	return msgs
}

// refusedBatch checks that data is one -32600 error whose message contains want.
func refusedBatch(t *testing.T, what string, status int, data []byte, want string) {
	t.Helper()
	var m struct {
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(data, &m) != nil || m.Error == nil || m.Error.Code != -32600 || !strings.Contains(m.Error.Message, want) || status != http.StatusBadRequest {
		t.Errorf("%s: %d %.300s, want 400 and error -32600 saying %q", what, status, data, want)
	}
}

func initBatch(version string) string {
	return `[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}]`
}

// TestBatchPerVersion: a batch is answered with an array where the exchange's protocol
// version has batches (2025-03-26: the Mcp-Protocol-Version header, else the version the
// session negotiated or its initialize asks for), and refused with -32600 where it does not
// (2025-06-18 and later), or when it holds more than 64 messages.
func TestBatchPerVersion(t *testing.T) {
	f := newFixture(t, nil)
	status, sid, data := postBody(t, f.url, "", "", initBatch("2025-03-26"))
	msgs := batchAnswer(t, "[initialize]", data)
	if status != http.StatusOK || sid == "" || len(msgs) != 1 || msgs[0]["id"] != 1.0 || msgs[0]["result"] == nil {
		t.Fatalf("[initialize] of 2025-03-26: %d, session %q, %v", status, sid, msgs)
	}
	if v := msgs[0]["result"].(map[string]any)["protocolVersion"]; v != "2025-03-26" {
		t.Errorf("negotiated %v", v)
	}

	// A client of 2025-03-26 sends no version header: the session's version counts.
	status, _, data = postBody(t, f.url, sid, "", `[{"jsonrpc":"2.0","method":"notifications/initialized"},`+
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"},`+
		`{"jsonrpc":"2.0","id":"three","method":"tools/call","params":{"name":"fault__echo","arguments":{"text":"batched"}}}]`)
	msgs = batchAnswer(t, "a batch of the session", data)
	if status != http.StatusOK || len(msgs) != 2 {
		t.Fatalf("a batch of the session: %d %v", status, msgs)
	}
	byID := map[any]map[string]any{}
	for _, m := range msgs {
		byID[m["id"]] = m
	}
	if res, _ := byID[2.0]["result"].(map[string]any); res == nil || len(res["tools"].([]any)) < 2 {
		t.Errorf("tools/list in a batch: %v", byID[2.0])
	}
	if res, _ := byID["three"]["result"].(map[string]any); res == nil || !strings.Contains(fmt.Sprint(res["content"]), "batched") {
		t.Errorf("tools/call in a batch: %v", byID["three"])
	}
	status, _, data = postBody(t, f.url, sid, "", `[{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"x","progress":1}}]`)
	if status != http.StatusAccepted || len(data) != 0 {
		t.Errorf("a batch of notifications: %d %q, want 202 and no body", status, data)
	}

	pings := make([]string, 65)
	for i := range pings {
		pings[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i+10)
	}
	status, _, data = postBody(t, f.url, sid, "", "["+strings.Join(pings, ",")+"]")
	refusedBatch(t, "65 messages", status, data, "at most 64")
	status, _, data = postBody(t, f.url, sid, "", "["+strings.Join(pings[:64], ",")+"]")
	if msgs := batchAnswer(t, "64 pings", data); status != http.StatusOK || len(msgs) != 64 {
		t.Errorf("64 pings: %d, %d answers", status, len(msgs))
	}

	status, _, data = postBody(t, f.url, sid, "2025-06-18", `[{"jsonrpc":"2.0","id":2,"method":"ping"}]`)
	refusedBatch(t, "a batch under 2025-06-18", status, data, "2025-06-18")
	status, _, data = postBody(t, f.url, "", "", initBatch("2025-06-18"))
	refusedBatch(t, "[initialize] of 2025-06-18", status, data, "2025-06-18")
	status, _, data = postBody(t, f.url, "", "", `[{"jsonrpc":"2.0","id":2,"method":"ping"}]`)
	refusedBatch(t, "a batch naming no version", status, data, "no version")

	cs, _ := connect(t, f.url, nil) // negotiates 2025-11-25
	status, _, data = postBody(t, f.url, cs.ID(), "", `[{"jsonrpc":"2.0","id":2,"method":"ping"}]`)
	refusedBatch(t, "a batch of a 2025-11-25 session", status, data, "2025-11-25")
}

// TestInflightCapped: a session serves at most Options.MaxInflight requests at once; one more
// is answered at once with an error naming server.max_inflight, and once a call ends the
// session takes requests again.
func TestInflightCapped(t *testing.T) {
	log := filepath.Join(t.TempDir(), "calls.log")
	f := newFixtureArgs(t, func(o *gateway.Options) { o.MaxInflight = 2 }, "--log", log)
	cs := connectPassing(t, f.url)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Go(func() {
			body := fmt.Sprintf(`{"jsonrpc":"2.0","id":"slow-%d","method":"tools/call","params":{"name":"fault__sleep","arguments":{"ms":60000}}}`, i)
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, f.url, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Session-Id", cs.ID())
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
			client := &http.Client{Transport: &http.Transport{}} // a connection of its own
			if resp, err := client.Do(req); err == nil {
				resp.Body.Close()
			}
		})
	}
	testwait.For(t, "both sleeps to begin upstream", func() bool {
		b, _ := os.ReadFile(log)
		return strings.Count(string(b), "begin ") == 2
	})
	_, _, msgs := post(t, f.url, cs.ID(), `{"jsonrpc":"2.0","id":99,"method":"ping"}`, nil)
	refusal, _ := rpcError(msgs)["message"].(string)
	if !strings.Contains(refusal, "server.max_inflight") || !strings.Contains(refusal, "2 requests in flight") {
		t.Errorf("a third request: %v, want an error naming server.max_inflight and the 2 in flight", msgs)
	}
	cancel() // the slow calls end with their requests
	wg.Wait()
	testwait.For(t, "the session to take requests again", func() bool {
		_, _, msgs := post(t, f.url, cs.ID(), `{"jsonrpc":"2.0","id":100,"method":"ping"}`, nil)
		return len(msgs) == 1 && rpcError(msgs) == nil
	})
}

// TestBatchEndsWithItsClient: once the client of a batch has gone, the messages of the batch
// not yet served are not served: no call of theirs begins upstream.
func TestBatchEndsWithItsClient(t *testing.T) {
	log := filepath.Join(t.TempDir(), "calls.log")
	f := newFixtureArgs(t, nil, "--log", log)
	returned := make(chan struct{})
	h := f.g.Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Test-Batch") != "" {
			defer close(returned)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	_, sid, _ := postBody(t, srv.URL, "", "", initBatch("2025-03-26"))
	calls := make([]string, 16)
	for i := range calls {
		calls[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":"slow-%d","method":"tools/call","params":{"name":"fault__sleep","arguments":{"ms":60000}}}`, i)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader("["+strings.Join(calls, ",")+"]"))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("X-Test-Batch", "1")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	begun := func() int {
		b, _ := os.ReadFile(log)
		return strings.Count(string(b), "begin ")
	}
	testwait.For(t, "the batch's first call to begin upstream", func() bool { return begun() == 1 })
	cancel()
	testwait.For(t, "the batch's handler to return", func() bool {
		select {
		case <-returned:
			return true
		default:
			return false
		}
	})
	if n := begun(); n != 1 {
		t.Errorf("%d calls of the batch began upstream, want 1: those after its client had gone were served too", n)
	}
}

// nextOnAnswer is a ResponseWriter whose first Write sends next, as a client does that sends
// its next request the moment it has its answer, and records next's messages.
type nextOnAnswer struct {
	*httptest.ResponseRecorder
	next func() []map[string]any
	got  []map[string]any
}

func (w *nextOnAnswer) Write(p []byte) (int, error) {
	if w.next != nil {
		w.got, w.next = w.next(), nil
	}
	return w.ResponseRecorder.Write(p)
}

// TestInflightFreedBeforeAnswer: a request no longer counts against Options.MaxInflight once
// its answer is on its way, so a client that waits for each answer before sending its next
// request is never refused, even when its next request arrives before the handler of the
// last one has returned (on another connection).
func TestInflightFreedBeforeAnswer(t *testing.T) {
	f := newFixture(t, func(o *gateway.Options) { o.MaxInflight = 1 })
	h := f.g.Handler() // the in-flight counts and the go-sdk's sessions are its own
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	cs := connectPassing(t, srv.URL)
	for _, first := range []string{
		`{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"fault__echo","arguments":{"text":"x"}}}`, // passed through
		`{"jsonrpc":"2.0","id":"p","method":"ping"}`,                                                                // the go-sdk's
	} {
		w := &nextOnAnswer{ResponseRecorder: httptest.NewRecorder(), next: func() []map[string]any {
			_, _, msgs := post(t, srv.URL, cs.ID(), `{"jsonrpc":"2.0","id":"next","method":"tools/call","params":{"name":"fault__echo","arguments":{"text":"y"}}}`, nil)
			return msgs
		}}
		req := httptest.NewRequest(http.MethodPost, srv.URL, strings.NewReader(first))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", cs.ID())
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		h.ServeHTTP(w, req)
		if w.next != nil {
			t.Fatalf("%s was not answered: %d %s", first, w.Code, w.Body)
		}
		if w.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", first, w.Code, w.Body)
		}
		if len(w.got) != 1 || rpcError(w.got) != nil {
			t.Errorf("after %s, the request sent once the answer came: %v, want its result", first, w.got)
		}
	}
}

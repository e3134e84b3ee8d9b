package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestEventReaderReadsTheSDKServer: the event stream a go-sdk streamable HTTP server answers a
// tools/call with, read through EventReader and Decode, holds the progress notifications and
// the result a go-sdk client gets from the same call.
func TestEventReaderReadsTheSDKServer(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "count"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		for i := range 3 {
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: float64(i), Message: "line 1\nline 2"})
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done\n\nreally"}}}, nil, nil
	})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	defer hs.Close()

	// The go-sdk client's view of the call.
	progressed := make(chan string, 16)
	cl := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			b, _ := json.Marshal(r.Params)
			progressed <- canonical[mcp.ProgressNotificationParams](t, b)
		},
	})
	ctx := context.Background()
	cs, err := cl.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	params := &mcp.CallToolParams{Name: "count", Meta: mcp.Meta{"progressToken": "tok"}}
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	cs.Close()
	sdkResult, _ := json.Marshal(res)
	// The go-sdk hands notifications to their handler on a goroutine of its own.
	var sdkProgress []string
	for range 3 {
		sdkProgress = append(sdkProgress, <-progressed)
	}

	// The same call made by hand, its event stream read by wire.
	sid := rawInitialize(t, hs.URL)
	body := post(t, hs.URL, sid, AppendRequest(nil, "call-1", "tools/call", mustJSON(t, params)))
	defer body.Close()
	er := NewEventReader(body, mcp.DefaultMaxEventSize)
	var progress []string
	var result json.RawMessage
	for {
		ev, err := er.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if !ev.Message() {
			continue
		}
		m, err := Decode(ev.Data)
		if err != nil {
			t.Fatalf("event %q: %v", ev.Data, err)
		}
		switch {
		case m.Method == "notifications/progress":
			progress = append(progress, canonical[mcp.ProgressNotificationParams](t, m.Params))
		case m.IsResponse() && string(m.ID) == `"call-1"`:
			result = m.Result
		}
	}
	if diff := cmp.Diff(sdkProgress, progress); diff != "" || len(progress) != 3 {
		t.Errorf("progress (-go-sdk +wire):\n%s", diff)
	}
	if canonical[mcp.CallToolResult](t, result) != canonical[mcp.CallToolResult](t, sdkResult) {
		t.Errorf("result: wire %s, go-sdk %s", result, sdkResult)
	}
}

// TestSDKClientReadsAppendEvent: a streamable HTTP server whose event streams are written with
// AppendEvent (multi-line data, event ids, retry, comments, named events) is read by a go-sdk
// client as EventReader reads it: the same progress, the same result.
func TestSDKClientReadsAppendEvent(t *testing.T) {
	var mu sync.Mutex
	var written []byte // every event stream served
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		data, _ := io.ReadAll(r.Body)
		m, err := Decode(data)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Mcp-Session-Id", "s-1")
		switch {
		case m.IsNotification():
			w.WriteHeader(http.StatusAccepted)
		case m.Method == "initialize":
			var p struct {
				Version string `json:"protocolVersion"`
			}
			_ = json.Unmarshal(m.Params, &p)
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(AppendResult(nil, m.ID, mustJSON(t, map[string]any{
				"protocolVersion": p.Version, "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "wire", "version": "1"},
			})))
		case m.Method == "tools/call":
			var p struct {
				Meta struct {
					Token json.RawMessage `json:"progressToken"`
				} `json:"_meta"`
			}
			_ = json.Unmarshal(m.Params, &p)
			var b []byte
			b = append(b, ": a comment\n\n"...)
			for i := range 2 {
				n := AppendNotification(nil, "notifications/progress", mustJSON(t, map[string]any{
					"progressToken": p.Meta.Token, "progress": i, "message": "first\nsecond"}))
				b = AppendEvent(b, Event{Name: "message", ID: "ev-" + string(rune('a'+i)), Data: indent(t, n)})
			}
			b = AppendEvent(b, Event{Name: "other", Data: []byte(`{"ignored":true}`)})
			res := AppendResult(nil, m.ID, []byte(`{"content":[{"type":"text","text":"x\ny"}],"isError":false}`))
			b = AppendEvent(b, Event{ID: "ev-z", Retry: "1000", Data: indent(t, res)})
			mu.Lock()
			written = append(written, b...)
			mu.Unlock()
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write(b)
		default:
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(AppendError(nil, m.ID, &jsonrpc.Error{Code: CodeMethodNotFound, Message: "method not found"}))
		}
	}))
	defer hs.Close()

	progressed := make(chan string, 16)
	cl := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			b, _ := json.Marshal(r.Params)
			progressed <- canonical[mcp.ProgressNotificationParams](t, b)
		},
	})
	ctx := context.Background()
	cs, err := cl.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "t", Meta: mcp.Meta{"progressToken": "p"}})
	if err != nil {
		t.Fatal(err)
	}
	sdkResult, _ := json.Marshal(res)
	var sdkProgress []string
	for range 2 {
		sdkProgress = append(sdkProgress, <-progressed)
	}

	mu.Lock()
	stream := bytes.Clone(written)
	mu.Unlock()
	er := NewEventReader(bytes.NewReader(stream), 0)
	var progress, ids []string
	var result json.RawMessage
	for {
		ev, err := er.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, ev.ID)
		if !ev.Message() {
			continue
		}
		m, err := Decode(ev.Data)
		if err != nil {
			t.Fatalf("%q: %v", ev.Data, err)
		}
		if m.IsNotification() {
			progress = append(progress, canonical[mcp.ProgressNotificationParams](t, m.Params))
		} else {
			result = m.Result
		}
	}
	if diff := cmp.Diff(sdkProgress, progress); diff != "" || len(progress) != 2 {
		t.Errorf("progress (-go-sdk +wire):\n%s", diff)
	}
	if canonical[mcp.CallToolResult](t, result) != canonical[mcp.CallToolResult](t, sdkResult) {
		t.Errorf("result: wire %s, go-sdk %s", result, sdkResult)
	}
	if diff := cmp.Diff([]string{"ev-a", "ev-b", "", "ev-z"}, ids); diff != "" {
		t.Errorf("event ids (-want +got):\n%s", diff)
	}
}

// TestEventReaderFields: fields as the go-sdk reads them: values trimmed, CRLF, a last event
// without its blank line, comments skipped, a line that is no field an error, the size limit.
func TestEventReaderFields(t *testing.T) {
	er := NewEventReader(strings.NewReader("event:  message \r\nid:7\r\nretry: 10\r\ndata: a\r\ndata:b \r\n\r\n:c\n\n\ndata: last"), 0)
	ev, err := er.Next()
	if err != nil || ev.Name != "message" || ev.ID != "7" || ev.Retry != "10" || string(ev.Data) != "a\nb" {
		t.Fatalf("first: %+v, %v", ev, err)
	}
	if ev, err = er.Next(); err != nil || string(ev.Data) != "last" {
		t.Fatalf("last: %+v, %v", ev, err)
	}
	if _, err = er.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("end: %v", err)
	}
	if _, err := NewEventReader(strings.NewReader("data: x\nbogus\n\n"), 0).Next(); !errors.Is(err, ErrMalformedEvent) {
		t.Errorf("no field: %v", err)
	}
	if _, err := NewEventReader(strings.NewReader("data: "+strings.Repeat("x", 100)+"\n\n"), 50).Next(); !errors.Is(err, ErrMalformedEvent) {
		t.Errorf("too big: %v", err)
	}
	big := strings.Repeat("y", 40<<10) // longer than the reader's buffer
	if ev, err := NewEventReader(strings.NewReader("data: "+big+"\n\n"), 0).Next(); err != nil || string(ev.Data) != big {
		t.Errorf("long line: %d bytes, %v", len(ev.Data), err)
	}
}

// rawInitialize opens a session of the streamable HTTP server at url by hand.
func rawInitialize(t *testing.T, url string) string {
	t.Helper()
	body := post(t, url, "", []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`))
	_, _ = io.Copy(io.Discard, body)
	body.Close()
	sid := lastSession
	post(t, url, sid, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)).Close()
	return sid
}

// lastSession is the Mcp-Session-Id of post's last response.
var lastSession string

func post(t *testing.T, url, sid string, body []byte) io.ReadCloser {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("POST %s: %s: %s", body, resp.Status, b)
	}
	if s := resp.Header.Get("Mcp-Session-Id"); s != "" {
		lastSession = s
	}
	return resp.Body
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// indent pretty-prints a message, so that its event's data spans lines.
func indent(t *testing.T, msg []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := json.Indent(&b, msg, "", "  "); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// canonical is raw decoded as a T and encoded again, so that two encodings of one value
// compare equal.
func canonical[T any](t *testing.T, raw []byte) string {
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Errorf("%s: %v", raw, err)
		return ""
	}
	b, _ := json.Marshal(&v)
	return string(b)
}

// TestEventReaderLongLineLinear: a data field far longer than the reader's buffer is gathered
// in time and memory linear in its length, as a large result on an event stream is.
func TestEventReaderLongLineLinear(t *testing.T) {
	const n = 8 << 20
	stream := append(append([]byte("data: "), bytes.Repeat([]byte{'x'}, n)...), "\n\n"...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	ev, err := NewEventReader(bytes.NewReader(stream), 0).Next()
	runtime.ReadMemStats(&after)
	if err != nil || len(ev.Data) != n {
		t.Fatalf("Next: %d bytes of data, %v; want %d", len(ev.Data), err, n)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 16*n {
		t.Fatalf("reading one %d-byte line allocated %d bytes: more than linear", n, got)
	}
}

// TestResponses: the responses of a JSON answer and of an event stream, without the requests
// and notifications sent on the stream, or anything that is no JSON-RPC message.
func TestResponses(t *testing.T) {
	res := `{"jsonrpc":"2.0","id":1,"result":{}}`
	if got := Responses("application/json; charset=utf-8", []byte(res)); len(got) != 1 || string(got[0]) != res {
		t.Errorf("JSON: %q", got)
	}
	stream := "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n" +
		": a comment\n\nevent: message\nid: 3\ndata: " + res + "\n\n" +
		"data: {\"jsonrpc\":\"2.0\",\"id\":\"x\",\"error\":{\"code\":-32601,\"message\":\"no\"}}\n\ndata: not json\n\n"
	got := Responses("text/event-stream", []byte(stream))
	if len(got) != 2 || string(got[0]) != res || !strings.Contains(string(got[1]), `"x"`) {
		t.Errorf("stream: %q", got)
	}
	if got := Responses("text/plain", []byte(res)); got != nil {
		t.Errorf("plain text: %q", got)
	}
}

// HasResponse says whether an answer carries a response: not for a stream of notifications
// alone, nor for a body of another type.
func TestHasResponse(t *testing.T) {
	res := `{"jsonrpc":"2.0","id":1,"result":{}}`
	progress := "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n"
	for _, c := range []struct {
		ct, body string
		want     bool
	}{
		{"application/json", res, true},
		{"application/json", `{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`, false},
		{"text/event-stream", progress, false},
		{"text/event-stream", progress + "data: " + res + "\n\n", true},
		{"text/event-stream", "data: not json\n\n", false},
		{"text/plain", res, false},
	} {
		if got := HasResponse(c.ct, []byte(c.body)); got != c.want {
			t.Errorf("HasResponse(%q, %q) = %v, want %v", c.ct, c.body, got, c.want)
		}
	}
}

package anthropic_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/agent/anthropic"
)

// messageServer is a local Messages-API endpoint: it answers the n-th request with
// replies[n] and records every request.
type messageServer struct {
	srv     *httptest.Server
	mu      sync.Mutex
	bodies  [][]byte
	headers []http.Header
	times   []time.Time // when each request came, on a synctest bubble's clock in one
	replies []func(w http.ResponseWriter)
}

func newMessageServer(t *testing.T, replies ...func(w http.ResponseWriter)) *messageServer {
	s := &messageServer{replies: replies}
	s.srv = httptest.NewServer(s)
	t.Cleanup(s.srv.Close)
	return s
}

// newInMemoryServer is a messageServer that its Models reach without a network, so a test
// in a synctest bubble has all its goroutines in the bubble and its waits on the fake clock.
func newInMemoryServer(replies ...func(w http.ResponseWriter)) *messageServer {
	return &messageServer{replies: replies}
}

// RoundTrip answers r with the server's handler, in the caller's goroutine.
func (s *messageServer) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, r)
	res := rec.Result()
	res.Request = r
	return res, nil
}

func (s *messageServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	n := len(s.bodies)
	s.bodies = append(s.bodies, body)
	s.headers = append(s.headers, r.Header.Clone())
	s.times = append(s.times, time.Now())
	s.mu.Unlock()
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		http.Error(w, "not here: "+r.Method+" "+r.URL.Path, http.StatusNotFound)
		return
	}
	if n >= len(s.replies) {
		http.Error(w, "no reply scripted", http.StatusTeapot)
		return
	}
	s.replies[n](w)
}

func (s *messageServer) requests() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.bodies)
}

// gaps returns the time between each request and the next.
func (s *messageServer) gaps() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []time.Duration
	for i := 1; i < len(s.times); i++ {
		out = append(out, s.times[i].Sub(s.times[i-1]))
	}
	return out
}

func (s *messageServer) header(i int) http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.headers[i]
}

// model returns a Model on the server; o's Model and APIKey default to test values, so the
// key of whoever runs the tests is not sent.
func (s *messageServer) model(t *testing.T, o anthropic.Options) *anthropic.Model {
	t.Helper()
	switch {
	case o.BaseURL != "":
	case s.srv != nil:
		o.BaseURL = s.srv.URL
	default:
		o.BaseURL, o.HTTPClient = "http://claude.test", &http.Client{Transport: s}
	}
	if o.Model == "" {
		o.Model = "claude-test"
	}
	if o.APIKey == "" {
		o.APIKey = "test-key"
	}
	m, err := anthropic.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// stream replies server-sent events as the Messages API streams them: each event is named by
// its data's "type".
func stream(events ...string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range events {
			var typed struct{ Type string }
			json.Unmarshal([]byte(e), &typed)
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typed.Type, e)
		}
	}
}

// reply is a whole stream: message_start, the blocks' events, message_delta with the stop
// reason, message_stop.
func reply(stop string, blocks ...[]string) func(w http.ResponseWriter) {
	evs := []string{`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":1}}}`,
		`{"type":"ping"}`}
	for _, b := range blocks {
		evs = append(evs, b...)
	}
	evs = append(evs, `{"type":"message_delta","delta":{"stop_reason":"`+stop+`","stop_sequence":null},"usage":{"output_tokens":5}}`,
		`{"type":"message_stop"}`)
	return stream(evs...)
}

// textBlock is the events of a text block at index i streamed in pieces.
func textBlock(i int, pieces ...string) []string {
	evs := []string{fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"text","text":""}}`, i)}
	for _, p := range pieces {
		q, _ := json.Marshal(p)
		evs = append(evs, fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":%s}}`, i, q))
	}
	return append(evs, fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i))
}

// toolBlock is the events of a tool_use block at index i, its input streamed in pieces.
func toolBlock(i int, id, name string, pieces ...string) []string {
	evs := []string{fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":%q,"name":%q,"input":{}}}`, i, id, name)}
	for _, p := range pieces {
		q, _ := json.Marshal(p)
		evs = append(evs, fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":%s}}`, i, q))
	}
	return append(evs, fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i))
}

// status replies an API error: status, the error's type and message, and headers.
func status(code int, typ, msg string, header ...string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		fmt.Fprintf(w, `{"type":"error","error":{"type":%q,"message":%q},"request_id":"req_1"}`, typ, msg)
	}
}

func req(prompt string) *agent.Request {
	return &agent.Request{Instructions: agent.Instructions{Static: "be brief"}, Messages: []agent.Message{agent.UserMessage(prompt)},
		Tools: []agent.ToolDef{{Name: "get", Description: "get a thing", InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}}}`)}}}
}

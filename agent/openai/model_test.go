package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/agent/internal/adaptertest"
	"github.com/agentpool/agentpool/agent/openai"
	"github.com/agentpool/agentpool/ext"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// chatServer is a local chat-completions endpoint: it answers the n-th request with
// replies[n] and records every request body.
type chatServer struct {
	t       *testing.T
	srv     *httptest.Server
	mu      sync.Mutex
	bodies  [][]byte
	auth    []string
	replies []func(w http.ResponseWriter)
}

func newChatServer(t *testing.T, replies ...func(w http.ResponseWriter)) *chatServer {
	s := &chatServer{t: t, replies: replies}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		n := len(s.bodies)
		s.bodies = append(s.bodies, body)
		s.auth = append(s.auth, r.Header.Get("Authorization"))
		s.mu.Unlock()
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			http.Error(w, "not here: "+r.Method+" "+r.URL.Path, http.StatusNotFound)
			return
		}
		if n >= len(s.replies) {
			http.Error(w, "no reply scripted", http.StatusTeapot)
			return
		}
		s.replies[n](w)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *chatServer) requests() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.bodies)
}

func (s *chatServer) authAt(i int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.auth[i]
}

func (s *chatServer) model(t *testing.T, o openai.Options) *openai.Model {
	t.Helper()
	o.BaseURL = s.srv.URL + "/v1"
	if o.Model == "" {
		o.Model = "local-model"
	}
	if o.APIKey == "" {
		o.APIKey = "test-key" // so $OPENAI_API_KEY of whoever runs the tests is not sent
	}
	m, err := openai.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// completion replies a chat completion with text and tool calls (name, arguments pairs).
func completion(text string, calls ...string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		msg := map[string]any{"role": "assistant", "content": text}
		var tcs []any
		for i := 0; i+1 < len(calls); i += 2 {
			tcs = append(tcs, map[string]any{"id": fmt.Sprintf("call_%d", i/2), "type": "function",
				"function": map[string]any{"name": calls[i], "arguments": calls[i+1]}})
		}
		if tcs != nil {
			msg["tool_calls"] = tcs
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": "c1", "object": "chat.completion", "created": 1, "model": "local-model",
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": "stop"}}})
	}
}

// raw replies status and body as given.
func raw(status int, body string, header ...string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// sse replies server-sent events, one data line per chunk, then [DONE].
func sse(chunks ...string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, c := range chunks {
			fmt.Fprintf(w, "data: %s\n\n", c)
			w.(http.Flusher).Flush()
		}
		io.WriteString(w, "data: [DONE]\n\n")
	}
}

func req(prompt string) *agent.Request {
	return &agent.Request{Instructions: agent.Instructions{Static: "be brief"}, Messages: []agent.Message{agent.UserMessage(prompt)},
		Tools: []agent.ToolDef{{Name: "get", Description: "get a thing", InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}}}`)}}}
}

func TestGenerateToolCall(t *testing.T) {
	s := newChatServer(t, completion("", "get", `{"id":"a"}`))
	m := s.model(t, openai.Options{APIKey: "sk-1"})
	resp, err := m.Generate(context.Background(), req("get a"))
	if err != nil {
		t.Fatal(err)
	}
	want := &agent.Response{ToolCalls: []agent.ToolCall{{ID: "call_0", Name: "get", Arguments: json.RawMessage(`{"id":"a"}`)}}}
	if d := cmp.Diff(want, resp); d != "" {
		t.Errorf("response (-want +got):\n%s", d)
	}
	var sent struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Function struct{ Name string } `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(s.requests()[0], &sent); err != nil {
		t.Fatal(err)
	}
	if sent.Model != "local-model" || len(sent.Messages) != 2 || sent.Messages[0].Role != "system" || sent.Messages[0].Content != "be brief" ||
		len(sent.Tools) != 1 || sent.Tools[0].Function.Name != "get" {
		t.Errorf("sent %s", s.requests()[0])
	}
	if s.authAt(0) != "Bearer sk-1" {
		t.Errorf("Authorization %q, want the API key", s.authAt(0))
	}
}

func TestGenerateParallelToolCalls(t *testing.T) {
	s := newChatServer(t, completion("two at once", "get", `{"id":"a"}`, "get", `{"id":"b"}`, "get", ``))
	resp, err := s.model(t, openai.Options{}).Generate(context.Background(), req("get a and b"))
	if err != nil {
		t.Fatal(err)
	}
	want := &agent.Response{Text: "two at once", ToolCalls: []agent.ToolCall{
		{ID: "call_0", Name: "get", Arguments: json.RawMessage(`{"id":"a"}`)},
		{ID: "call_1", Name: "get", Arguments: json.RawMessage(`{"id":"b"}`)},
		{ID: "call_2", Name: "get"},
	}}
	if d := cmp.Diff(want, resp); d != "" {
		t.Errorf("response (-want +got):\n%s", d)
	}
}

func TestStreamAssemblesToolCallDeltas(t *testing.T) {
	chunk := func(delta string) string {
		return `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":null}]}`
	}
	s := newChatServer(t, sse(
		chunk(`{"role":"assistant","content":"Look"}`),
		chunk(`{"content":"ing up."}`),
		chunk(`{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get","arguments":""}}]}`),
		chunk(`{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"get","arguments":"{\"i"}}]}`),
		chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"id\":"}}]}`),
		chunk(`{"tool_calls":[{"index":1,"function":{"arguments":"d\":\"b\"}"}}]}`),
		chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"\"a\"}"}}]}`),
		`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`,
	))
	var deltas []string
	resp, err := s.model(t, openai.Options{}).Stream(context.Background(), req("get a and b"), func(d string) { deltas = append(deltas, d) })
	if err != nil {
		t.Fatal(err)
	}
	want := &agent.Response{Text: "Looking up.", ToolCalls: []agent.ToolCall{
		{ID: "call_a", Name: "get", Arguments: json.RawMessage(`{"id":"a"}`)},
		{ID: "call_b", Name: "get", Arguments: json.RawMessage(`{"id":"b"}`)},
	}}
	if d := cmp.Diff(want, resp); d != "" {
		t.Errorf("response (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"Look", "ing up."}, deltas); d != "" {
		t.Errorf("deltas (-want +got):\n%s", d)
	}
	if !strings.Contains(string(s.requests()[0]), `"stream":true`) {
		t.Errorf("the request did not ask for a stream: %s", s.requests()[0])
	}
}

func TestRetryAfter429(t *testing.T) {
	s := newChatServer(t,
		raw(http.StatusTooManyRequests, `{"error":{"message":"slow down","type":"rate_limit"}}`, "Retry-After", "0"),
		completion("finally"))
	resp, err := s.model(t, openai.Options{}).Generate(context.Background(), req("hi"))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "finally" || len(s.requests()) != 2 {
		t.Errorf("got %+v after %d requests, want the second answer after 2", resp, len(s.requests()))
	}
}

func TestStreamRetryAfter429(t *testing.T) {
	s := newChatServer(t,
		raw(http.StatusTooManyRequests, `{"error":{"message":"slow down"}}`, "Retry-After", "0"),
		sse(`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"ok"}}]}`))
	resp, err := s.model(t, openai.Options{}).Stream(context.Background(), req("hi"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "ok" || len(s.requests()) != 2 {
		t.Errorf("got %+v after %d requests, want the streamed answer after 2", resp, len(s.requests()))
	}
}

func TestRetryAfterBeyondBoundIsReturned(t *testing.T) {
	s := newChatServer(t,
		raw(http.StatusTooManyRequests, `{"error":{"message":"come back in an hour","type":"rate_limit"}}`, "Retry-After", "3600"),
		completion("never"))
	_, err := s.model(t, openai.Options{MaxRetryWait: time.Second}).Generate(context.Background(), req("hi"))
	if err == nil || !strings.Contains(err.Error(), "429 Too Many Requests: come back in an hour") {
		t.Fatalf("err = %v, want the 429 and its message", err)
	}
	if n := len(s.requests()); n != 1 {
		t.Errorf("%d requests, want 1: a Retry-After beyond MaxRetryWait is not waited for", n)
	}
}

func TestMalformedResponse(t *testing.T) {
	chunk := `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a"}}]}`
	for _, tc := range []struct {
		name   string
		reply  func(w http.ResponseWriter)
		stream bool
	}{
		{"not JSON", raw(http.StatusOK, `<html>gateway says hi</html>`), false},
		{"no choices", raw(http.StatusOK, `{"id":"x","object":"chat.completion","choices":[]}`), false},
		{"tool call without a name", completion("", "", `{}`), false},
		{"chunk not JSON", sse(chunk, `{"choices":[{"delta":`), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newChatServer(t, tc.reply)
			m := s.model(t, openai.Options{})
			var err error
			if tc.stream {
				_, err = m.Stream(context.Background(), req("hi"), nil)
			} else {
				_, err = m.Generate(context.Background(), req("hi"))
			}
			if !errors.Is(err, openai.ErrMalformedResponse) || !strings.Contains(err.Error(), `model "local-model" at http://127.0.0.1`) {
				t.Fatalf("err = %v, want ErrMalformedResponse naming the model and endpoint", err)
			}
		})
	}
}

// TestNoAPIKey: a local server needs no key, and gets no Authorization header.
func TestNoAPIKey(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	s := newChatServer(t, completion("hi"))
	m, err := openai.New(openai.Options{BaseURL: s.srv.URL + "/v1", Model: "local-model"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Generate(context.Background(), req("hi")); err != nil {
		t.Fatal(err)
	}
	if s.authAt(0) != "" {
		t.Errorf("Authorization %q sent without a key", s.authAt(0))
	}
}

func TestNoModelName(t *testing.T) {
	if _, err := openai.New(openai.Options{BaseURL: "http://127.0.0.1:1/v1"}); err == nil {
		t.Fatal("New without a model name succeeded")
	}
}

// TestRunEndToEnd runs agent.Run with the Model against the local endpoint over a real view:
// the endpoint asks for a tool of the fixture server, the agent calls it through the view,
// and the result goes back to the endpoint in a tool message.
func TestRunEndToEnd(t *testing.T) {
	s := newChatServer(t,
		completion("", "search", `{"query":"go"}`),
		completion("Found 2 hits."))
	a, err := agent.New(agent.Options{Model: s.model(t, openai.Options{}), Registry: adaptertest.Registry(t),
		Scope: ext.Scope{SessionID: "s1", AgentName: "main"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(context.Background(), &agent.Input{Prompt: "search go"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "Found 2 hits." || res.Steps != 2 {
		t.Errorf("result %+v", res)
	}
	var second struct {
		Messages []struct {
			Role       string `json:"role"`
			Content    any    `json:"content"`
			ToolCallID string `json:"tool_call_id"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(s.requests()[1], &second); err != nil {
		t.Fatal(err)
	}
	last := second.Messages[len(second.Messages)-1]
	if last.Role != "tool" || last.ToolCallID != "call_0" || last.Content != "2 hits" {
		t.Errorf("last message sent %+v, want the tool's result", last)
	}
}

// TestEndpointCredentialsNotInErrors: a base URL may carry credentials (user info for a proxy's
// basic auth, a token as the user name, a key in the query); the errors name the endpoint
// without them, whether the endpoint answered with an error or could not be reached.
func TestEndpointCredentialsNotInErrors(t *testing.T) {
	s := newChatServer(t, raw(http.StatusBadRequest, `{"error":{"message":"bad"}}`), raw(http.StatusBadRequest, `{"error":{"message":"bad"}}`))
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	for _, base := range []string{s.srv.URL, down.URL} {
		host := strings.TrimPrefix(base, "http://")
		for _, creds := range []string{"sk-user-token@", "user:sk-password@"} {
			u := "http://" + creds + host + "/v1?key=sk-query-key"
			m, err := openai.New(openai.Options{BaseURL: u, Model: "local-model", APIKey: "test-key", MaxRetries: -1})
			if err != nil {
				t.Fatal(err)
			}
			_, err = m.Generate(context.Background(), req("hi"))
			if err == nil {
				t.Fatalf("%s: no error", u)
			}
			for _, secret := range []string{"sk-user-token", "sk-password", "sk-query-key"} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("the error for %s shows %s: %v", u, secret, err)
				}
			}
			if !strings.Contains(err.Error(), host) {
				t.Errorf("the error for %s does not name the endpoint: %v", u, err)
			}
		}
	}
}

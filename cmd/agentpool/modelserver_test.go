package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/agent/openai"
)

// modelServer is a local OpenAI-compatible chat-completions endpoint for the tests
// of the commands that run an agent (chat, acp): each request is answered by
// script, from the conversation's last message, in the plain or the streaming
// (server-sent events) form the client asked for. Every request body is kept.
type modelServer struct {
	URL    string // base URL up to and without /chat/completions
	script func(last modelMessage) modelReply

	mu     sync.Mutex
	bodies [][]byte
}

// modelMessage is the last message of a request as the script sees it.
type modelMessage struct {
	Role    string // "user", "tool", …
	Content string // its text (parts joined)
	Name    string // for a tool result: the tool call id it answers
}

// modelReply is one assistant turn: text and/or tool calls; or, with Status set, an error
// answer of that HTTP status (a 429 says to retry after 1 ms, so a client's retries are quick).
type modelReply struct {
	Text   string
	Calls  []modelCall
	Status int
	// Reasoning is streamed in reasoning_content before the text (streaming only).
	Reasoning string
}

// modelCall is a tool call the model asks for.
type modelCall struct {
	Name string
	Args string // JSON object
	ID   string // the call's id; empty means call_<request>_<index>
}

// newModelServer starts a scripted endpoint on 127.0.0.1, closed at cleanup.
func newModelServer(t *testing.T, script func(last modelMessage) modelReply) *modelServer {
	t.Helper()
	s := &modelServer{script: script}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(srv.Close)
	s.URL = srv.URL + "/v1"
	return s
}

// Requests returns the bodies received so far.
func (s *modelServer) Requests() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.bodies)
}

func (s *modelServer) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, "not here: "+r.Method+" "+r.URL.Path, http.StatusNotFound)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	s.mu.Lock()
	s.bodies = append(s.bodies, body)
	n := len(s.bodies)
	s.mu.Unlock()
	var req struct {
		Stream   bool `json:"stream"`
		Messages []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCallID string          `json:"tool_call_id"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
		http.Error(w, fmt.Sprintf("bad request: %v", err), http.StatusBadRequest)
		return
	}
	m := req.Messages[len(req.Messages)-1]
	reply := s.script(modelMessage{Role: m.Role, Content: contentText(m.Content), Name: m.ToolCallID})
	if reply.Status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After-Ms", "1")
		w.WriteHeader(reply.Status)
		fmt.Fprintf(w, `{"error":{"message":"scripted %d","type":"scripted","code":"scripted"}}`, reply.Status)
		return
	}
	var calls []any
	for i, c := range reply.Calls {
		id := c.ID
		if id == "" {
			id = fmt.Sprintf("call_%d_%d", n, i)
		}
		calls = append(calls, map[string]any{"index": i, "id": id, "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": c.Args}})
	}
	finish := "stop"
	if calls != nil {
		finish = "tool_calls"
	}
	msg := map[string]any{"role": "assistant", "content": reply.Text}
	if calls != nil {
		msg["tool_calls"] = calls
	}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": fmt.Sprint("c", n), "object": "chat.completion", "created": 1,
			"model": "local-model", "choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(delta map[string]any, finish any) {
		b, _ := json.Marshal(map[string]any{"id": fmt.Sprint("c", n), "object": "chat.completion.chunk", "created": 1,
			"model": "local-model", "choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
		fmt.Fprintf(w, "data: %s\n\n", b)
		w.(http.Flusher).Flush()
	}
	// The text in two pieces, as a streaming endpoint would send it, split between characters.
	half := len(reply.Text) / 2
	for half > 0 && !utf8.RuneStart(reply.Text[half]) {
		half--
	}
	if reply.Reasoning != "" {
		chunk(map[string]any{"role": "assistant", "content": "", "reasoning_content": reply.Reasoning}, nil)
	}
	chunk(map[string]any{"role": "assistant", "content": reply.Text[:half]}, nil)
	chunk(map[string]any{"content": reply.Text[half:]}, nil)
	if calls != nil {
		chunk(map[string]any{"tool_calls": calls}, nil)
	}
	chunk(map[string]any{}, finish)
	io.WriteString(w, "data: [DONE]\n\n")
}

// contentText reads a chat message's content, a string or an array of parts.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// TestModelServerSpeaksOpenAI checks the scripted endpoint with the repository's
// own OpenAI-compatible client, plain and streaming, before other tests lean on it.
func TestModelServerSpeaksOpenAI(t *testing.T) {
	t.Parallel()
	srv := newModelServer(t, func(last modelMessage) modelReply {
		if last.Role == "tool" {
			return modelReply{Text: "tool said " + last.Content}
		}
		return modelReply{Text: "calling", Calls: []modelCall{{Name: "echo", Args: `{"x":"` + last.Content + `"}`}}}
	})
	for _, stream := range []bool{false, true} {
		m, err := openai.New(openai.Options{BaseURL: srv.URL, Model: "local-model", APIKey: "k"})
		if err != nil {
			t.Fatal(err)
		}
		req := &agent.Request{Messages: []agent.Message{agent.UserMessage("hi")}}
		var resp *agent.Response
		if stream {
			resp, err = m.Stream(context.Background(), req, func(string) {})
		} else {
			resp, err = m.Generate(context.Background(), req)
		}
		if err != nil {
			t.Fatalf("stream=%v: %v", stream, err)
		}
		if resp.Text != "calling" || len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != "echo" ||
			string(resp.ToolCalls[0].Arguments) != `{"x":"hi"}` {
			t.Errorf("stream=%v: got %+v", stream, resp)
		}
	}
}

// TestModelServerStreamsUTF8: the two streamed pieces of a text split it between characters,
// never inside one (JSON would carry a broken half as U+FFFD).
func TestModelServerStreamsUTF8(t *testing.T) {
	t.Parallel()
	srv := newModelServer(t, func(modelMessage) modelReply { return modelReply{Text: "a✓"} })
	m, err := openai.New(openai.Options{BaseURL: srv.URL, Model: "local-model", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	var pieces []string
	resp, err := m.Stream(context.Background(), &agent.Request{Messages: []agent.Message{agent.UserMessage("hi")}},
		func(s string) { pieces = append(pieces, s) })
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "a✓" {
		t.Errorf("streamed %q (pieces %q), want %q", resp.Text, pieces, "a✓")
	}
}

package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/agent/internal/adaptertest"
	"github.com/agentpool/agentpool/agent/openai"
	"github.com/google/go-cmp/cmp"
)

func toolChunk(delta string) string {
	return `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":null}]}`
}

// Ollama streams every call of a parallel batch with index 0 (ollama/ollama#15457), each
// announced by its own id: assembled by index alone, they became one call with the last
// name and the arguments concatenated ({"id":"a"}{"id":"b"}), and the other calls were lost.
func TestStreamParallelCallsSharingAnIndex(t *testing.T) {
	s := newChatServer(t, sse(
		toolChunk(`{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get","arguments":"{\"id\":"}}]}`),
		toolChunk(`{"tool_calls":[{"index":0,"function":{"arguments":"\"a\"}"}}]}`),
		toolChunk(`{"tool_calls":[{"index":0,"id":"call_b","type":"function","function":{"name":"put","arguments":"{\"id\":\"b\"}"}}]}`),
		toolChunk(`{"tool_calls":[{"index":0,"id":"call_c","type":"function","function":{"name":"get","arguments":"{\"id\":\"c\"}"}}]}`),
	))
	resp, err := s.model(t, openai.Options{}).Stream(context.Background(), req("get a, put b, get c"), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := &agent.Response{ToolCalls: []agent.ToolCall{
		{ID: "call_a", Name: "get", Arguments: json.RawMessage(`{"id":"a"}`)},
		{ID: "call_b", Name: "put", Arguments: json.RawMessage(`{"id":"b"}`)},
		{ID: "call_c", Name: "get", Arguments: json.RawMessage(`{"id":"c"}`)},
	}}
	if d := cmp.Diff(want, resp); d != "" {
		t.Errorf("response (-want +got):\n%s", d)
	}
}

// A server that sends a new id with each piece of one call has still one call: only a
// delta with a name starts another.
func TestStreamNewIDWithoutNameContinuesTheCall(t *testing.T) {
	s := newChatServer(t, sse(
		toolChunk(`{"tool_calls":[{"index":0,"id":"p1","type":"function","function":{"name":"get","arguments":"{\"id\":"}}]}`),
		toolChunk(`{"tool_calls":[{"index":0,"id":"p2","function":{"arguments":"\"a\"}"}}]}`),
	))
	resp, err := s.model(t, openai.Options{}).Stream(context.Background(), req("get a"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.ToolCalls) != 1 || string(resp.ToolCalls[0].Arguments) != `{"id":"a"}` || resp.ToolCalls[0].Name != "get" {
		t.Errorf("calls = %+v", resp.ToolCalls)
	}
}

// TestStreamAnsweredWithoutEvents: an endpoint that answers a streaming request with a plain
// JSON completion (or anything that is not an event stream) is a clear error, not an empty
// answer that a chat prints as nothing.
func TestStreamAnsweredWithoutEvents(t *testing.T) {
	srv := newChatServer(t, completion("hello"), raw(200, `{}`))
	m := srv.model(t, openai.Options{})
	for i := 0; i < 2; i++ {
		resp, err := m.Stream(context.Background(), req("hi"), nil)
		if !errors.Is(err, openai.ErrMalformedResponse) || !strings.Contains(err.Error(), "event") {
			t.Errorf("answer %d: %+v, %v; want ErrMalformedResponse saying no events came", i, resp, err)
		}
	}
}

// TestStreamReasoningGolden: the reasoning an OpenAI-compatible server streams in
// reasoning_content (vLLM, DeepSeek, llama.cpp) or reasoning (Ollama, OpenRouter) is passed
// to thought, apart from the text; the response holds the answer and calls only.
func TestStreamReasoningGolden(t *testing.T) {
	stream, err := os.ReadFile(filepath.Join("testdata", "reasoning.sse"))
	if err != nil {
		t.Fatal(err)
	}
	s := newChatServer(t, func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(stream)
	})
	type event struct{ Kind, Text string }
	var events []event
	resp, err := s.model(t, openai.Options{}).StreamReasoning(context.Background(), req("get a"),
		func(text string) { events = append(events, event{"text", text}) },
		func(text string) { events = append(events, event{"thought", text}) })
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(map[string]any{"events": events, "response": resp})
	if err != nil {
		t.Fatal(err)
	}
	adaptertest.Golden(t, "reasoning.golden", b)
}

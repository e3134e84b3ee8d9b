package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/agent/anthropic"
	"github.com/agentpool/agentpool/agent/internal/adaptertest"
	"github.com/agentpool/agentpool/ext"
	"github.com/google/go-cmp/cmp"
)

// TestStreamGolden is the streaming Messages request the Model sends for the fixture view's
// tools, instructions and every kind of tool result, as a local endpoint received it; and
// the streamed answer, text and a tool call, as an agent.Response.
func TestStreamGolden(t *testing.T) {
	s := newMessageServer(t, reply("tool_use", textBlock(0, "Let me ", "search."), toolBlock(1, "toolu_1", "search", `{"query":`, `"go"}`)))
	resp, err := s.model(t, anthropic.Options{}).Stream(context.Background(), adaptertest.Request(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	adaptertest.Golden(t, "stream.golden", s.requests()[0])
	want := &agent.Response{Text: "Let me search.", ToolCalls: []agent.ToolCall{{ID: "toolu_1", Name: "search", Arguments: json.RawMessage(`{"query":"go"}`)}}}
	if d := cmp.Diff(want, resp); d != "" {
		t.Errorf("response (-want +got):\n%s", d)
	}
}

func TestStreamText(t *testing.T) {
	s := newMessageServer(t, reply("end_turn", textBlock(0, "Hel", "lo", "."), textBlock(1, " Bye.")))
	var deltas []string
	resp, err := s.model(t, anthropic.Options{APIKey: "sk-ant-1"}).Stream(context.Background(), req("hi"), func(d string) { deltas = append(deltas, d) })
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(&agent.Response{Text: "Hello. Bye."}, resp); d != "" {
		t.Errorf("response (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"Hel", "lo", ".", " Bye."}, deltas); d != "" {
		t.Errorf("deltas (-want +got):\n%s", d)
	}
	var sent struct {
		Model     string `json:"model"`
		MaxTokens int    `json:"max_tokens"`
		Stream    bool   `json:"stream"`
		System    []struct {
			Text         string          `json:"text"`
			CacheControl json.RawMessage `json:"cache_control"`
		} `json:"system"`
		Tools []struct{ Name string } `json:"tools"`
	}
	if err := json.Unmarshal(s.requests()[0], &sent); err != nil {
		t.Fatal(err)
	}
	if sent.Model != "claude-test" || sent.MaxTokens != anthropic.DefaultMaxTokens || !sent.Stream ||
		len(sent.System) != 1 || sent.System[0].Text != "be brief" || string(sent.System[0].CacheControl) != `{"type":"ephemeral"}` ||
		len(sent.Tools) != 1 || sent.Tools[0].Name != "get" {
		t.Errorf("sent %s", s.requests()[0])
	}
	if got := s.header(0).Get("Authorization"); got != "Bearer sk-ant-1" {
		t.Errorf("Authorization %q, want the API key", got)
	}
}

// Generate streams too, and returns what Stream would.
func TestGenerate(t *testing.T) {
	s := newMessageServer(t, reply("end_turn", textBlock(0, "a", "b")))
	resp, err := s.model(t, anthropic.Options{MaxTokens: 100}).Generate(context.Background(), req("hi"))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "ab" || !strings.Contains(string(s.requests()[0]), `"max_tokens":100`) {
		t.Errorf("response %+v for request %s", resp, s.requests()[0])
	}
}

// Parallel tool calls are tool_use blocks one after another, each input streamed in pieces;
// a tool without arguments has the input {}.
func TestStreamParallelToolCalls(t *testing.T) {
	s := newMessageServer(t, reply("tool_use",
		textBlock(0, "Two at once."),
		toolBlock(1, "toolu_a", "get", `{"id"`, `:"a"}`),
		toolBlock(2, "toolu_b", "get", "", `{"id":"b"}`),
		toolBlock(3, "toolu_c", "now"),
	))
	resp, err := s.model(t, anthropic.Options{}).Stream(context.Background(), req("get a and b"), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := &agent.Response{Text: "Two at once.", ToolCalls: []agent.ToolCall{
		{ID: "toolu_a", Name: "get", Arguments: json.RawMessage(`{"id":"a"}`)},
		{ID: "toolu_b", Name: "get", Arguments: json.RawMessage(`{"id":"b"}`)},
		{ID: "toolu_c", Name: "now", Arguments: json.RawMessage(`{}`)},
	}}
	if d := cmp.Diff(want, resp); d != "" {
		t.Errorf("response (-want +got):\n%s", d)
	}
}

// A tool_use cut at max_tokens has input that is not JSON: it is kept as a JSON string, so
// the agent tells the model, instead of the step failing.
func TestStreamCutToolInput(t *testing.T) {
	s := newMessageServer(t, reply("max_tokens", toolBlock(0, "toolu_a", "get", `{"id":"a`)))
	resp, err := s.model(t, anthropic.Options{}).Stream(context.Background(), req("get a"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.ToolCalls) != 1 || string(resp.ToolCalls[0].Arguments) != `"{\"id\":\"a"` {
		t.Errorf("calls %+v", resp.ToolCalls)
	}
}

func TestMalformedResponse(t *testing.T) {
	start := `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"usage":{"input_tokens":1,"output_tokens":1}}}`
	for _, tc := range []struct {
		name  string
		reply func(w http.ResponseWriter)
		says  string
	}{
		{"a JSON message, not a stream", status(http.StatusOK, "x", "y"), "without server-sent events"},
		{"cut before message_stop", stream(append([]string{start}, textBlock(0, "partial")...)...), "before message_stop"},
		{"a delta for no block", stream(start, `{"type":"content_block_delta","index":3,"delta":{"type":"text_delta","text":"x"}}`, `{"type":"message_stop"}`), "never started"},
		{"an event not JSON", func(w http.ResponseWriter) {
			stream(start)(w)
			io.WriteString(w, "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":\n\n")
		}, "unexpected end of JSON input"},
		{"a tool_use without a name", reply("tool_use", toolBlock(0, "toolu_a", "")), "has no name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newMessageServer(t, tc.reply, tc.reply, tc.reply)
			_, err := s.model(t, anthropic.Options{}).Stream(context.Background(), req("hi"), nil)
			if !errors.Is(err, anthropic.ErrMalformedResponse) || !strings.Contains(err.Error(), tc.says) ||
				!strings.Contains(err.Error(), `model "claude-test" at http://127.0.0.1`) {
				t.Fatalf("err = %v, want ErrMalformedResponse naming the model and endpoint and saying %q", err, tc.says)
			}
			if n := len(s.requests()); n != 1 {
				t.Errorf("%d requests, want 1: a malformed answer is not retried", n)
			}
		})
	}
}

// TestRunEndToEnd runs agent.Run with the Model against the local endpoint over a real view:
// the endpoint asks for a tool of the fixture server, the agent calls it through the view,
// and the result goes back in a tool_result block.
func TestRunEndToEnd(t *testing.T) {
	s := newMessageServer(t,
		reply("tool_use", toolBlock(0, "toolu_1", "search", `{"query":"go"}`)),
		reply("end_turn", textBlock(0, "Found 2 hits.")))
	var mu sync.Mutex
	var deltas []string
	a, err := agent.New(agent.Options{Model: s.model(t, anthropic.Options{}), Registry: adaptertest.Registry(t),
		Scope: ext.Scope{SessionID: "s1", AgentName: "main"}, Observer: func(e agent.Event) {
			if e.Kind == agent.EventDelta {
				mu.Lock()
				deltas = append(deltas, e.Text)
				mu.Unlock()
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(context.Background(), &agent.Input{Prompt: "search go"})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if res.Text != "Found 2 hits." || res.Steps != 2 || strings.Join(deltas, "") != "Found 2 hits." {
		t.Errorf("result %+v, deltas %q", res, deltas)
	}
	var second struct {
		Messages []sentMessage `json:"messages"`
	}
	if err := json.Unmarshal(s.requests()[1], &second); err != nil {
		t.Fatal(err)
	}
	last := second.Messages[len(second.Messages)-1]
	if last.Role != "user" || len(last.Content) != 1 || last.Content[0].Type != "tool_result" || *last.Content[0].Content[0].Text != "2 hits" {
		t.Errorf("last message sent %+v, want the tool's result", last)
	}
}

// A thinking block's pieces go to thought, apart from the answer, and are not in the
// Response.
func TestStreamReasoning(t *testing.T) {
	thinking := []string{`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"The user wants "}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"a greeting."}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"sig"}}`,
		`{"type":"content_block_stop","index":0}`}
	s := newMessageServer(t, reply("end_turn", thinking, textBlock(1, "Hello", "!")))
	var text, thoughts []string
	resp, err := s.model(t, anthropic.Options{}).StreamReasoning(context.Background(), req("hi"),
		func(d string) { text = append(text, d) }, func(d string) { thoughts = append(thoughts, d) })
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(&agent.Response{Text: "Hello!"}, resp); d != "" {
		t.Errorf("response (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"Hello", "!"}, text); d != "" {
		t.Errorf("text (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"The user wants ", "a greeting."}, thoughts); d != "" {
		t.Errorf("thoughts (-want +got):\n%s", d)
	}
}

package openai_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agentpool/agentpool/agent/internal/adaptertest"
	"github.com/agentpool/agentpool/agent/openai"
)

// TestChatGolden is the chat-completions request body the SDK sends for the fixture view's
// tools, instructions and results, as a local endpoint received it.
func TestChatGolden(t *testing.T) {
	req := adaptertest.Request(t)
	s := newChatServer(t, completion("ok"))
	if _, err := s.model(t, openai.Options{Model: "gpt-test"}).Generate(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	adaptertest.Golden(t, "chat.golden", s.requests()[0])
}

// TestResponsesGolden is the responses-API request for the same.
func TestResponsesGolden(t *testing.T) {
	b, err := json.Marshal(openai.ResponsesParams("gpt-test", adaptertest.Request(t)))
	if err != nil {
		t.Fatal(err)
	}
	adaptertest.Golden(t, "responses.golden", b)
}

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// TestChatAnthropic chats with --model anthropic:<name> against a local endpoint speaking
// the Messages API's event stream: the model asks for a tool of the config's server, its
// result goes back in a tool_result block, and the streamed answer is printed.
func TestChatAnthropic(t *testing.T) {
	noChatLeaks(t)
	f := newChatFixture(t)
	var mu sync.Mutex
	var bodies []string
	var auth []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(body))
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		if r.URL.Path != "/v1/messages" {
			http.Error(w, "not here: "+r.URL.Path, http.StatusNotFound)
			return
		}
		var req struct {
			Model    string
			Messages []struct {
				Content []struct{ Type string }
			}
		}
		json.Unmarshal(body, &req)
		last := req.Messages[len(req.Messages)-1].Content
		events := []string{`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"` + req.Model + `","content":[],"usage":{"input_tokens":1,"output_tokens":1}}}`}
		if len(last) > 0 && last[0].Type == "tool_result" {
			events = append(events, `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
				`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"the tool "}}`,
				`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"answered"}}`,
				`{"type":"content_block_stop","index":0}`)
		} else {
			events = append(events, `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"fault__echo","input":{}}}`,
				`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"text\":"}}`,
				`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"\"ping-42\"}"}}`,
				`{"type":"content_block_stop","index":0}`)
		}
		events = append(events, `{"type":"message_stop"}`)
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range events {
			var typed struct{ Type string }
			json.Unmarshal([]byte(e), &typed)
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typed.Type, e)
		}
	}))
	t.Cleanup(srv.Close)

	cmd := exec.Command("agentpool", "--config", f.config, "chat", "--base-url", srv.URL, "--model", "anthropic:claude-test", "--api-key", "sk-ant-test")
	cmd.Env = append(f.env, "ANTHROPIC_API_KEY=", "ANTHROPIC_BASE_URL=")
	cmd.Dir = t.TempDir()
	cmd.Stdin = strings.NewReader("use the tool\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chat: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "the tool answered") {
		t.Errorf("stdout lacks the answer:\nstdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(bodies) != 2 || !strings.Contains(bodies[0], `"model":"claude-test"`) || !strings.Contains(bodies[1], `"tool_use_id":"toolu_1"`) ||
		!strings.Contains(bodies[1], "ping-42") {
		t.Fatalf("requests:\n%s", strings.Join(bodies, "\n"))
	}
	if auth[0] != "Bearer sk-ant-test" {
		t.Errorf("Authorization %q, want the --api-key", auth[0])
	}
}

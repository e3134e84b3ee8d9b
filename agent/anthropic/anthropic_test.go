package anthropic_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/agent/anthropic"
	"github.com/agentpool/agentpool/agent/internal/adaptertest"
	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// send sends params with the SDK to a local server that answers reply, and returns the body
// the SDK sent and the message it decoded.
func send(t *testing.T, params sdk.MessageNewParams, reply string) ([]byte, *sdk.Message) {
	t.Helper()
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ = io.ReadAll(r.Body)
		if r.URL.Path != "/v1/messages" {
			http.Error(w, r.URL.Path, http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, reply)
	}))
	defer srv.Close()
	c := sdk.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test-key"), option.WithMaxRetries(0))
	msg, err := c.Messages.New(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	return body, msg
}

const answer = `{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","stop_reason":"tool_use",
"content":[{"type":"text","text":"Let me "},{"type":"text","text":"search."},
{"type":"tool_use","id":"toolu_1","name":"search","input":{"query":"go","filters":[{"field":"title","value":"mcp"}]}},
{"type":"tool_use","id":"toolu_2","name":"now","input":{}}],
"usage":{"input_tokens":1,"output_tokens":1}}`

// TestMessagesGolden is the Messages-API request body the SDK sends for the fixture view's
// tools, instructions and every kind of tool result, as a local server received it; and the
// server's answer mapped back to an agent.Response.
func TestMessagesGolden(t *testing.T) {
	body, msg := send(t, anthropic.Params("claude-test", 1024, adaptertest.Request(t)), answer)
	adaptertest.Golden(t, "messages.golden", body)

	want := &agent.Response{Text: "Let me search.", ToolCalls: []agent.ToolCall{
		{ID: "toolu_1", Name: "search", Arguments: json.RawMessage(`{"query":"go","filters":[{"field":"title","value":"mcp"}]}`)},
		{ID: "toolu_2", Name: "now", Arguments: json.RawMessage(`{}`)},
	}}
	if d := cmp.Diff(want, anthropic.FromMessage(msg)); d != "" {
		t.Errorf("FromMessage (-want +got):\n%s", d)
	}
}

// TestSystemCacheBreakpoint checks the cache breakpoint is on the static block only, and the
// dynamic block comes after it.
func TestSystemCacheBreakpoint(t *testing.T) {
	b, err := json.Marshal(anthropic.System(agent.Instructions{Static: "catalogue", Dynamic: "this turn"}))
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"text":"catalogue","cache_control":{"type":"ephemeral"},"type":"text"},{"text":"this turn","type":"text"}]`
	if string(b) != want {
		t.Errorf("system = %s\nwant     %s", b, want)
	}
	if s := anthropic.System(agent.Instructions{Dynamic: "only"}); len(s) != 1 || s[0].Text != "only" {
		t.Errorf("dynamic only: %+v", s)
	}
}

// TestToolsAlwaysHaveInputSchema: the API requires input_schema, even for a tool without
// arguments, whose schema the SDK would otherwise leave out as empty.
func TestToolsAlwaysHaveInputSchema(t *testing.T) {
	b, err := json.Marshal(anthropic.Tools([]agent.ToolDef{{Name: "now", InputSchema: json.RawMessage(`{"type":"object"}`)}}))
	if err != nil {
		t.Fatal(err)
	}
	if want := `[{"input_schema":{"properties":{},"type":"object"},"name":"now"}]`; string(b) != want {
		t.Errorf("tools = %s\nwant    %s", b, want)
	}
}

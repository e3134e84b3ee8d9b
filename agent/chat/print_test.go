package chat

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/ext"
)

func TestPrinterLines(t *testing.T) {
	var out, errOut bytes.Buffer
	p := NewPrinter(&out, &errOut, false)
	p.Event(agent.Event{Kind: agent.EventDelta, Text: "thinking"})
	p.Event(agent.Event{Kind: agent.EventRetry, Text: "429 Too Many Requests: slow down; retrying in 1s (attempt 2 of 3)"})
	p.Event(agent.Event{Kind: agent.EventToolCall, Call: agent.ToolCall{Name: "ghost", Arguments: json.RawMessage(`{}`)}})
	p.Event(agent.Event{Kind: agent.EventToolCall, Call: agent.ToolCall{Name: "fs__read", Arguments: json.RawMessage("{\"p\":\"\x1b[2J\"}")},
		Origin: ext.RemoteOrigin("fs")})
	if want := "thinking\n[tool] ghost {} (no such tool)\n[tool] fs__read {\"p\":\"\\x1b[2J\"} (remote mcp://fs)\n"; out.String() != want {
		t.Errorf("out:\n%q\nwant\n%q", out.String(), want)
	}
	if want := "model: 429 Too Many Requests: slow down; retrying in 1s (attempt 2 of 3)\n"; errOut.String() != want {
		t.Errorf("errOut %q, want %q", errOut.String(), want)
	}
}

func TestToolsLine(t *testing.T) {
	own := ext.Origin{Kind: ext.OriginLocal, Location: "agent"}
	defs := []agent.ToolDef{{Name: "fs__read", Origin: ext.RemoteOrigin("fs")}, {Name: "read_resource", Origin: own}, {Name: "list_resources", Origin: own}}
	if got, want := toolsLine(defs), "the model is offered 3 tools: 1 of the view, 2 of the agent (read_resource, list_resources)"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

func TestArgsOf(t *testing.T) {
	for line, want := range map[string]string{`/review "unclosed`: `"unclosed`, "  /x\ta b ": "a b", "/help": ""} {
		if got := argsOf(line); got != want {
			t.Errorf("argsOf(%q) = %q, want %q", line, got, want)
		}
	}
}

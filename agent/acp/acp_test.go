package acp_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/agent/acp"
	"github.com/agentpool/agentpool/ext"
	sdk "github.com/coder/acp-go-sdk"
)

// commandNames are the names of an available_commands_update.
func commandNames(u sdk.SessionUpdate) []string {
	var out []string
	for _, c := range u.AvailableCommandsUpdate.AvailableCommands {
		out = append(out, c.Name)
	}
	return out
}

func isCommands(u sdk.SessionUpdate) bool { return u.AvailableCommandsUpdate != nil }

// origin reads _meta.agentpool.origin.location.
func origin(meta map[string]any) string {
	b, _ := json.Marshal(meta)
	var m struct {
		Agentpool struct {
			Origin ext.Origin `json:"origin"`
		} `json:"agentpool"`
	}
	json.Unmarshal(b, &m)
	return m.Agentpool.Origin.Location
}

// TestTurnReportsToolCallsAndText: a prompt that makes the model call a tool streams the call
// as tool_call then tool_call_update (title the tool's name, origin in _meta, the result as
// content), then the model's text as chunks, and ends with end_turn; the next turn sees the
// first in its history.
func TestTurnReportsToolCallsAndText(t *testing.T) {
	b := newBox()
	b.tools["echo"] = func(_ context.Context, args json.RawMessage) (*ext.ToolResult, error) {
		return ext.TextResult("echoed " + string(args)), nil
	}
	m := &model{fn: func(req *agent.Request) (*agent.Response, error) {
		last := req.Messages[len(req.Messages)-1]
		switch {
		case last.Role == agent.RoleTool:
			return &agent.Response{Text: "the tool said " + last.Text()}, nil
		case lastText(req) == "again":
			return &agent.Response{Text: "once more"}, nil
		}
		return &agent.Response{ToolCalls: []agent.ToolCall{{ID: "c1", Name: "echo", Arguments: json.RawMessage(`{"x":1}`)}}}, nil
	}}
	f := start(t, m, acp.Options{}, b)
	init := f.initialize(t)
	if init.ProtocolVersion != sdk.ProtocolVersionNumber || init.AgentCapabilities.SessionCapabilities.Close == nil {
		t.Errorf("initialize = %+v, want protocol %d and session/close", init, sdk.ProtocolVersionNumber)
	}
	if init.AgentCapabilities.McpCapabilities.Http {
		t.Error("http servers advertised without AddServer")
	}
	id := f.newSession(t)
	if r := f.prompt(t, id, "use the tool"); r.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("stop reason %q, want end_turn", r.StopReason)
	}
	f.client.mu.Lock()
	updates := slices.Clone(f.client.updates)
	f.client.mu.Unlock()
	var calls, ends int
	var text strings.Builder
	var callID sdk.ToolCallId
	for _, n := range updates {
		u := n.Update
		switch {
		case u.ToolCall != nil:
			calls++
			callID = u.ToolCall.ToolCallId
			if u.ToolCall.Title != "echo" || u.ToolCall.Status != sdk.ToolCallStatusInProgress || u.ToolCall.Kind != sdk.ToolKindRead ||
				origin(u.ToolCall.Meta) != "mcp://box" || ends > 0 {
				t.Errorf("tool_call %+v: want echo, in_progress, read, from mcp://box, before its end", u.ToolCall)
			}
			if raw, _ := json.Marshal(u.ToolCall.RawInput); string(raw) != `{"x":1}` {
				t.Errorf("rawInput %s", raw)
			}
		case u.ToolCallUpdate != nil:
			ends++
			tu := u.ToolCallUpdate
			if tu.ToolCallId != callID || callID == "" || tu.Status == nil || *tu.Status != sdk.ToolCallStatusCompleted || len(tu.Content) != 1 ||
				tu.Content[0].Content == nil || tu.Content[0].Content.Content.Text.Text != `echoed {"x":1}` {
				t.Errorf("tool_call_update %+v: want %s completed with the result", tu, callID)
			}
		case u.AgentMessageChunk != nil:
			text.WriteString(u.AgentMessageChunk.Content.Text.Text)
		}
	}
	if calls != 1 || ends != 1 {
		t.Errorf("%d tool_call and %d tool_call_update, want one each", calls, ends)
	}
	if text.String() != `the tool said echoed {"x":1}` {
		t.Errorf("agent text %q", text.String())
	}
	f.prompt(t, id, "again")
	reqs := m.requests()
	if h := reqs[len(reqs)-1].Messages; len(h) != 5 || h[0].Text() != "use the tool" {
		t.Errorf("the second turn's request has %d messages (first %q), want the first turn's 4 and its own", len(h), h[0].Text())
	}
}

// TestCommandsFollowTheView: the session's commands are advertised after session/new, a
// slash command from the list reaches the model expanded, and a command added later (hot
// reload) is advertised again.
func TestCommandsFollowTheView(t *testing.T) {
	b := newBox()
	b.commands = []string{"greet"}
	m := &model{fn: func(req *agent.Request) (*agent.Response, error) { return &agent.Response{Text: "ok"}, nil }}
	f := start(t, m, acp.Options{}, b)
	f.initialize(t)
	id := f.newSession(t)
	u := f.client.waitFor(t, "available_commands_update", isCommands)
	if got := commandNames(u); !slices.Equal(got, []string{"greet"}) {
		t.Fatalf("advertised %v, want [greet]", got)
	}
	ac := u.AvailableCommandsUpdate.AvailableCommands[0]
	if ac.Input == nil || ac.Input.Unstructured == nil || ac.Input.Unstructured.Hint != "WHO" || origin(ac.Meta) != "mcp://box" {
		t.Errorf("command %+v: want hint WHO and origin mcp://box", ac)
	}
	f.prompt(t, id, `/greet "Ann Lee" Bob`)
	f.prompt(t, id, "/usr/bin is slow")
	reqs := m.requests()
	if got := lastText(reqs[0]); got != "greet: Ann Lee|Bob" {
		t.Errorf("the model got %q for /greet, want the expansion", got)
	}
	if got := lastText(reqs[1]); got != "/usr/bin is slow" {
		t.Errorf("the model got %q for a line naming no command", got)
	}
	b.addCommand("wave")
	u = f.client.waitFor(t, "a second available_commands_update", isCommands)
	if got := commandNames(u); !slices.Equal(got, []string{"greet", "wave"}) {
		t.Errorf("after the reload advertised %v, want [greet wave]", got)
	}
}

// TestCancelEndsTheTurn: session/cancel during a tool call cancels the call's context, reports
// the call failed, and the prompt answers cancelled.
func TestCancelEndsTheTurn(t *testing.T) {
	b := newBox()
	started := make(chan struct{})
	var cancelled sync.WaitGroup
	cancelled.Add(1)
	b.tools["slow"] = func(ctx context.Context, _ json.RawMessage) (*ext.ToolResult, error) {
		close(started)
		<-ctx.Done()
		cancelled.Done()
		return nil, ctx.Err()
	}
	m := &model{fn: func(req *agent.Request) (*agent.Response, error) {
		return &agent.Response{ToolCalls: []agent.ToolCall{{ID: "s1", Name: "slow"}}}, nil
	}}
	f := start(t, m, acp.Options{}, b)
	f.initialize(t)
	id := f.newSession(t)
	res := make(chan sdk.PromptResponse, 1)
	go func() {
		r, err := f.conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock("go slow")}})
		if err != nil {
			t.Error(err)
		}
		res <- r
	}()
	<-started
	if err := f.conn.Cancel(context.Background(), sdk.CancelNotification{SessionId: id}); err != nil {
		t.Fatal(err)
	}
	if r := <-res; r.StopReason != sdk.StopReasonCancelled {
		t.Errorf("stop reason %q, want cancelled", r.StopReason)
	}
	cancelled.Wait() // the tool saw its context end
	f.client.mu.Lock()
	defer f.client.mu.Unlock()
	var callID sdk.ToolCallId
	for _, n := range f.client.updates {
		if n.Update.ToolCall != nil {
			callID = n.Update.ToolCall.ToolCallId
		}
	}
	failed := slices.ContainsFunc(f.client.updates, func(n sdk.SessionNotification) bool {
		u := n.Update.ToolCallUpdate
		return u != nil && callID != "" && u.ToolCallId == callID && u.Status != nil && *u.Status == sdk.ToolCallStatusFailed
	})
	if !failed {
		t.Error("the cancelled call was not reported failed")
	}
}

// TestClientServers: the servers of session/new reach AddServer converted, in the new
// session; a session whose every server is refused is refused; and the end of the connection
// closes every session it opened.
func TestClientServers(t *testing.T) {
	var mu sync.Mutex
	var added []acp.MCPServer
	var opened, closed []string
	opts := acp.Options{
		OpenSession: func(_ context.Context, id string) error {
			mu.Lock()
			defer mu.Unlock()
			opened = append(opened, id)
			return nil
		},
		CloseSession: func(_ context.Context, id string) error {
			mu.Lock()
			defer mu.Unlock()
			closed = append(closed, id)
			return nil
		},
		AddServer: func(_ context.Context, id string, s acp.MCPServer) error {
			if s.Name == "bad" {
				return errors.New("refused by policy")
			}
			mu.Lock()
			defer mu.Unlock()
			added = append(added, s)
			return nil
		},
	}
	m := &model{fn: func(*agent.Request) (*agent.Response, error) { return &agent.Response{Text: "ok"}, nil }}
	f := start(t, m, opts)
	if caps := f.initialize(t).AgentCapabilities.McpCapabilities; !caps.Http || !caps.Sse {
		t.Errorf("mcpCapabilities %+v, want http and sse", caps)
	}
	stdio := sdk.McpServer{Stdio: &sdk.McpServerStdio{Name: "files", Command: "/bin/files", Args: []string{"-v"},
		Env: []sdk.EnvVariable{{Name: "K", Value: "V"}}}}
	web := sdk.McpServer{Http: &sdk.McpServerHttpInline{Type: "http", Name: "web", Url: "http://127.0.0.1:1/mcp",
		Headers: []sdk.HttpHeader{{Name: "X-T", Value: "t"}}}}
	bad := sdk.McpServer{Stdio: &sdk.McpServerStdio{Name: "bad", Command: "/bin/bad", Args: []string{}, Env: []sdk.EnvVariable{}}}
	r, err := f.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: "/", McpServers: []sdk.McpServer{stdio, web, bad}})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(r.Meta); !strings.Contains(string(b), "refused by policy") {
		t.Errorf("session/new _meta %s does not report the refused server", b)
	}
	want := []acp.MCPServer{
		{Name: "files", Type: acp.TypeStdio, Command: "/bin/files", Args: []string{"-v"}, Env: map[string]string{"K": "V"}},
		{Name: "web", Type: acp.TypeHTTP, URL: "http://127.0.0.1:1/mcp", Headers: map[string]string{"X-T": "t"}},
	}
	mu.Lock()
	gotAdded, gotOpened := slices.Clone(added), slices.Clone(opened)
	mu.Unlock()
	if b1, b2 := mustJSON(gotAdded), mustJSON(want); b1 != b2 {
		t.Errorf("AddServer got %s, want %s", b1, b2)
	}
	if len(gotOpened) != 1 || gotOpened[0] != string(r.SessionId) {
		t.Errorf("opened %v, want the new session %s", gotOpened, r.SessionId)
	}
	if _, err := f.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: "/", McpServers: []sdk.McpServer{bad}}); err == nil ||
		!strings.Contains(err.Error(), "refused by policy") {
		t.Errorf("a session whose only server was refused: err %v", err)
	}
	f.hangUp()
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(opened)
	slices.Sort(closed)
	if len(opened) != 2 || !slices.Equal(opened, closed) {
		t.Errorf("opened %v, closed %v: every session opened must be closed", opened, closed)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestCommandArgumentsThatDoNotParse: a prompt naming one of the session's commands whose
// arguments do not parse (an unclosed quote) is refused with the reason, as agentpool chat
// refuses the line: it is not sent to the model as plain text. A line naming no command is the
// user's text, however it quotes.
func TestCommandArgumentsThatDoNotParse(t *testing.T) {
	b := newBox()
	b.commands = []string{"greet"}
	m := &model{fn: func(req *agent.Request) (*agent.Response, error) { return &agent.Response{Text: "ok"}, nil }}
	f := start(t, m, acp.Options{}, b)
	f.initialize(t)
	id := f.newSession(t)
	_, err := f.conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock(`/greet "Ann Lee`)}})
	if err == nil || !strings.Contains(err.Error(), "/greet") {
		t.Errorf("/greet with an unclosed quote: err %v, want a refusal naming /greet", err)
	}
	if n := len(m.requests()); n != 0 {
		t.Errorf("the model was asked %d times for a command line that does not parse", n)
	}
	f.prompt(t, id, `/usr/bin isn't slow`)
	if reqs := m.requests(); len(reqs) != 1 || lastText(reqs[0]) != `/usr/bin isn't slow` {
		t.Errorf("a line naming no command: the model got %d requests, want it once as typed", len(reqs))
	}
}

// Options.Permission decides before annotations: a denied tool does not run and the model is
// told why, an allowed one runs unasked, and a read-only tool set to ask is asked about.
func TestPermissionPolicy(t *testing.T) {
	b := newBox()
	var ran sync.Map
	for _, n := range []string{"rm", "ls", "echo"} {
		b.tools[n] = func(context.Context, json.RawMessage) (*ext.ToolResult, error) {
			ran.Store(n, true)
			return ext.TextResult(n + " ran"), nil
		}
	}
	m := &model{fn: func(req *agent.Request) (*agent.Response, error) {
		if last := req.Messages[len(req.Messages)-1]; last.Role == agent.RoleTool {
			return &agent.Response{Text: "ok"}, nil
		}
		return &agent.Response{ToolCalls: []agent.ToolCall{{ID: "a", Name: "rm"}, {ID: "b", Name: "ls"}, {ID: "c", Name: "echo"}}}, nil
	}}
	policy := map[string]string{"rm": acp.PermissionDeny, "ls": acp.PermissionAllow, "echo": acp.PermissionAsk}
	f := start(t, m, acp.Options{Permission: func(o ext.Origin, tool string) string {
		if o.Location != "mcp://box" {
			return ""
		}
		return policy[tool]
	}}, b)
	f.initialize(t)
	f.prompt(t, f.newSession(t), "go")
	if _, ok := ran.Load("rm"); ok {
		t.Error("the denied tool ran")
	}
	if _, ok := ran.Load("ls"); !ok {
		t.Error("the allowed tool did not run")
	}
	f.client.mu.Lock()
	asked := slices.Clone(f.client.asked)
	f.client.mu.Unlock()
	if len(asked) != 1 || asked[0].ToolCall.Title == nil || *asked[0].ToolCall.Title != "echo" {
		t.Errorf("asked %+v, want once, for echo", asked)
	}
	reqs := m.requests()
	var told bool
	for _, msg := range reqs[len(reqs)-1].Messages {
		if msg.ToolCallID == "a" && msg.IsError && strings.Contains(msg.Text(), "denies") {
			told = true
		}
	}
	if !told {
		t.Error("the model was not told the call was denied")
	}
}

// Options.Permission is given a tool's name as its server lists it, also when the view served
// it under another (a dotted name is served with "_"): a denied "fs.rm" does not run.
func TestPermissionPolicyByListedName(t *testing.T) {
	b := newBox()
	var ran atomic.Bool
	b.tools["fs.rm"] = func(context.Context, json.RawMessage) (*ext.ToolResult, error) {
		ran.Store(true)
		return ext.TextResult("removed"), nil
	}
	m := &model{fn: func(req *agent.Request) (*agent.Response, error) {
		if last := req.Messages[len(req.Messages)-1]; last.Role == agent.RoleTool {
			return &agent.Response{Text: "ok"}, nil
		}
		return &agent.Response{ToolCalls: []agent.ToolCall{{ID: "a", Name: "fs_rm"}}}, nil
	}}
	var names sync.Map
	f := start(t, m, acp.Options{Permission: func(o ext.Origin, tool string) string {
		names.Store(tool, true)
		if tool == "fs.rm" {
			return acp.PermissionDeny
		}
		return ""
	}}, b)
	f.initialize(t)
	f.prompt(t, f.newSession(t), "go")
	if ran.Load() {
		var seen []any
		names.Range(func(k, _ any) bool { seen = append(seen, k); return true })
		t.Errorf("the denied tool ran (Permission was given %v)", seen)
	}
}

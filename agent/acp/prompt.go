package acp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/cmdline"
	"github.com/agentpool/agentpool/ext"
	sdk "github.com/coder/acp-go-sdk"
)

// turn is what a running turn reports through: the tool calls started and not yet ended, the
// editor's id of each, and whether the model's text was streamed.
type turn struct {
	ctx context.Context // for the updates: not cancelled with the turn (see Prompt)

	mu       sync.Mutex
	open     map[sdk.ToolCallId]map[string]any // started, not ended: their _meta
	ids      map[callKey]sdk.ToolCallId        // started, not ended: the editor's ids
	streamed bool
}

// callKey is a tool call as the agent names it: a model's ids are unique within one run of
// one agent only (a cancelled step leaves its ids free for the next turn, a subagent counts
// its own).
type callKey struct{ agent, id string }

// Prompt runs one turn (session/prompt). A text that starts with "/name" naming one of the
// session's commands is that command, expanded through the view (Agent.CommandInput);
// anything else, "/usr/bin" included, is the user's prompt. The turn sees the session's
// history and adds to it however it ends. Its text and tool calls are streamed as
// session/update notifications; it ends with end_turn, max_turn_requests, or cancelled when
// session/cancel (or the client's going away) cancelled it; a model failure is an error.
func (c *conn) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	s, err := c.session(p.SessionId)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	text, err := promptText(p.Prompt)
	if err != nil {
		return sdk.PromptResponse{}, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	// The SDK cancels ctx on session/cancel, when the next prompt of the session arrives and
	// when the client goes; Cancel and the session's end cancel it too, from the moment it
	// arrives: one turn at a time, so a prompt sent during another waits for it, and a
	// session/cancel or session/close must reach it while it waits as well.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(s.ctx, cancel)()
	s.mu.Lock()
	s.prompts++
	slot := s.prompts
	s.cancels[slot] = cancel
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.cancels, slot)
		s.mu.Unlock()
	}()
	s.turnMu.Lock()
	defer s.turnMu.Unlock()
	if s.ended {
		return sdk.PromptResponse{}, sdk.NewInvalidParams(map[string]any{"error": "session " + s.id + " has ended"})
	}
	// Cancelled while it waited: it never runs. The session's context is looked at too: the
	// AfterFunc above cancels ctx from a goroutine of its own when the session ended before
	// this prompt arrived, and may not have yet.
	if ctx.Err() != nil || s.ctx.Err() != nil {
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	}
	t := &turn{ctx: context.WithoutCancel(ctx), open: map[sdk.ToolCallId]map[string]any{}, ids: map[callKey]sdk.ToolCallId{}}
	s.mu.Lock()
	s.turn = t
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.turn = nil
		s.mu.Unlock()
	}()

	in, err := s.input(ctx, text)
	if err != nil {
		if ctx.Err() != nil {
			return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
		}
		return sdk.PromptResponse{}, err
	}
	in.History = s.history
	in.TurnCapabilities = append(in.TurnCapabilities, planCap{s})
	res, err := s.agent.Run(ctx, in)
	s.history = append(s.history, res.Messages...)
	for _, pr := range res.Problems {
		c.srv.log.Warn("turn problem", "session", s.id, "problem", pr)
	}
	t.mu.Lock()
	streamed := t.streamed
	t.mu.Unlock()
	if !streamed && res.Text != "" {
		s.update(t.ctx, sdk.UpdateAgentMessageText(res.Text))
	}
	s.failOpen(t)
	switch {
	case ctx.Err() != nil:
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	case res.Stop == agent.StopDone:
		return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
	case res.Stop == agent.StopMaxSteps:
		return sdk.PromptResponse{StopReason: sdk.StopReasonMaxTurnRequests}, nil
	}
	return sdk.PromptResponse{}, err
}

// Cancel cancels the session's running turn and any prompt waiting for it (session/cancel);
// each prompt then returns cancelled. Without a prompt it does nothing.
func (c *conn) Cancel(_ context.Context, p sdk.CancelNotification) error {
	if s, err := c.session(p.SessionId); err == nil {
		s.cancelTurns()
	}
	return nil
}

func (s *session) cancelTurns() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, cancel := range s.cancels {
		cancel()
	}
}

// input is the turn's input for text: a command's expansion, or the prompt itself.
func (s *session) input(ctx context.Context, text string) (*agent.Input, error) {
	if !strings.HasPrefix(strings.TrimSpace(text), "/") {
		return &agent.Input{Prompt: text}, nil
	}
	// The name first: arguments that do not parse are the user's mistake only when the line
	// names a command ("/usr/bin isn't slow" is text, "/greet \"Ann" a command typed wrong).
	name := strings.TrimSpace(text)[1:]
	if i := strings.IndexAny(name, " \t\n\r\v\f"); i >= 0 {
		name = name[:i]
	}
	if name == "" {
		return &agent.Input{Prompt: text}, nil
	}
	v, err := s.c.srv.cache.Get(ctx, s.scope)
	if err != nil {
		return nil, err
	}
	if _, ok := v.Command(name); !ok {
		return &agent.Input{Prompt: text}, nil
	}
	_, args, _, err := cmdline.ParseLine(text)
	if err != nil {
		return nil, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	in, err := s.agent.CommandInput(ctx, &ext.CommandRequest{Name: name, Args: args})
	if err != nil {
		return nil, fmt.Errorf("command /%s: %w", name, err)
	}
	return in, nil
}

// promptText joins the prompt's blocks into one text: text as it is, a resource link as a
// Markdown link, an embedded text resource wrapped in <resource uri="…">. Images, audio and
// binary resources are refused (promptCapabilities does not offer them).
func promptText(blocks []sdk.ContentBlock) (string, error) {
	var parts []string
	for _, b := range blocks {
		switch {
		case b.Text != nil:
			parts = append(parts, b.Text.Text)
		case b.ResourceLink != nil:
			parts = append(parts, fmt.Sprintf("[%s](%s)", b.ResourceLink.Name, b.ResourceLink.Uri))
		case b.Resource != nil && b.Resource.Resource.TextResourceContents != nil:
			r := b.Resource.Resource.TextResourceContents
			parts = append(parts, fmt.Sprintf("<resource uri=%q>\n%s\n</resource>", r.Uri, r.Text))
		default:
			return "", errors.New("prompt: only text, resource links and embedded text resources are supported")
		}
	}
	return strings.Join(parts, "\n"), nil
}

// observe turns the agent's events into session updates: streamed text into
// agent_message_chunk, a tool call's start into tool_call (in_progress), its end into
// tool_call_update (completed, or failed when the result is an error).
func (s *session) observe(e agent.Event) {
	s.mu.Lock()
	t := s.turn
	s.mu.Unlock()
	if t == nil {
		return
	}
	switch e.Kind {
	case agent.EventDelta:
		if e.Agent != s.scope.AgentName || e.Text == "" {
			return
		}
		t.mu.Lock()
		t.streamed = true
		t.mu.Unlock()
		s.update(t.ctx, sdk.UpdateAgentMessageText(e.Text))
	case agent.EventThought:
		if e.Agent == s.scope.AgentName && e.Text != "" {
			s.update(t.ctx, sdk.UpdateAgentThoughtText(e.Text))
		}
	case agent.EventToolCall:
		if isPlan(e) {
			return // shown as the plan itself
		}
		meta := callMeta(e)
		id := s.callID()
		t.mu.Lock()
		t.ids[callKey{e.Agent, e.Call.ID}] = id
		t.open[id] = meta
		t.mu.Unlock()
		def := s.toolDef(e)
		s.update(t.ctx, sdk.SessionUpdate{ToolCall: &sdk.SessionUpdateToolCall{
			SessionUpdate: "tool_call", ToolCallId: id, Title: toolTitle(def), Kind: toolKind(def),
			Locations: locations(e.Call.Arguments), Status: sdk.ToolCallStatusInProgress,
			RawInput: rawInput(e.Call.Arguments), Meta: meta}})
	case agent.EventToolResult:
		if isPlan(e) {
			return
		}
		t.mu.Lock()
		id, ok := t.ids[callKey{e.Agent, e.Call.ID}]
		delete(t.ids, callKey{e.Agent, e.Call.ID})
		delete(t.open, id)
		t.mu.Unlock()
		if !ok {
			return
		}
		status := sdk.ToolCallStatusCompleted
		var content []sdk.ToolCallContent
		var raw any
		if e.Result != nil {
			if e.Result.IsError {
				status = sdk.ToolCallStatusFailed
			}
			content = toolContent(e.Result.Content)
			if len(e.Result.StructuredContent) > 0 {
				raw = json.RawMessage(e.Result.StructuredContent)
			}
		}
		s.update(t.ctx, sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{
			SessionUpdate: "tool_call_update", ToolCallId: id, Status: &status, Content: content, RawOutput: raw, Meta: callMeta(e)}})
	}
}

// isPlan reports whether e is about a call of update_plan.
func isPlan(e agent.Event) bool { return e.Call.Name == planTool && e.Origin == planOrigin }

// callID returns the session's next tool-call id for the editor: "call-<n>", counted per
// session, so an id never names two calls of one session whatever ids the model gives.
func (s *session) callID() sdk.ToolCallId {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	return sdk.ToolCallId(fmt.Sprintf("call-%d", s.calls))
}

// failOpen reports the calls a cancelled turn cut short as failed, before the prompt returns
// (ACP wants every update of a turn sent before its response).
func (s *session) failOpen(t *turn) {
	t.mu.Lock()
	open := t.open
	t.open = map[sdk.ToolCallId]map[string]any{}
	t.mu.Unlock()
	failed := sdk.ToolCallStatusFailed
	for id, meta := range open {
		s.update(t.ctx, sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{
			SessionUpdate: "tool_call_update", ToolCallId: id, Status: &failed, Meta: meta,
			Content: []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock("cancelled"))}}})
	}
}

func (s *session) update(ctx context.Context, u sdk.SessionUpdate) {
	if err := s.c.client().SessionUpdate(ctx, sdk.SessionNotification{SessionId: sdk.SessionId(s.id), Update: u}); err != nil {
		s.c.srv.log.Debug("session update not sent", "session", s.id, "err", err)
	}
}

// callMeta is a tool call's _meta: where the tool comes from, and which agent called it
// unless that is an internal name (starting with "_", as agentpool acp's own agent is): a
// name the user never gave means nothing to them.
func callMeta(e agent.Event) map[string]any {
	m := map[string]any{"origin": e.Origin, "tool": e.Call.Name}
	if !strings.HasPrefix(e.Agent, "_") {
		m["agent"] = e.Agent
	}
	return map[string]any{metaKey: m}
}

// rawInput is the call's arguments as JSON, or nil when they are none or not JSON.
func rawInput(args json.RawMessage) any {
	if len(args) == 0 || !json.Valid(args) {
		return nil
	}
	return args
}

// toolContent is a tool result's content for the client: text and images as they are, any
// other kind flattened to text.
func toolContent(cs []ext.Content) []sdk.ToolCallContent {
	out := make([]sdk.ToolCallContent, 0, len(cs))
	for _, c := range cs {
		switch c.Type {
		case ext.ContentImage:
			out = append(out, sdk.ToolContent(sdk.ImageBlock(base64.StdEncoding.EncodeToString(c.Data), c.MIMEType)))
		default:
			if t := c.Flatten(); t != "" {
				out = append(out, sdk.ToolContent(sdk.TextBlock(t)))
			}
		}
	}
	return out
}

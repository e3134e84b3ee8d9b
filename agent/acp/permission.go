package acp

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/ext"
	sdk "github.com/coder/acp-go-sdk"
)

// What Options.Permission says of a tool.
const (
	// PermissionAsk: the editor's user is asked before every call of the tool.
	PermissionAsk = "ask"
	// PermissionAllow: the tool runs without asking.
	PermissionAllow = "allow"
	// PermissionDeny: the tool never runs; the model is told it was denied.
	PermissionDeny = "deny"
)

// The options of a session/request_permission.
const (
	optionAllow       = "allow"
	optionAllowAlways = "allow_always"
	optionReject      = "reject"
)

// errDeclined is what the model is told of a call the user rejected.
var errDeclined = errors.New("the user declined this call")

// permit decides whether a tool call runs (agent.Options.Permit): the configured permission
// of the tool (Options.Permission) first; without one, a tool annotated read-only and not
// destructive, and the agent's own tools, run, and any other is asked about. Asking is a
// session/request_permission naming the call's card, with allow once, allow always
// (remembered for the session's life) and reject; a rejection, or a request that failed or was
// cancelled, leaves the call unmade.
func (s *session) permit(ctx context.Context, e agent.Event, tool agent.ToolDef) error {
	policy := ""
	if p := s.c.srv.o.Permission; p != nil {
		policy = p(tool.Origin, s.listedName(e.Agent, tool))
	}
	switch policy {
	case PermissionAllow:
		return nil
	case PermissionDeny:
		return fmt.Errorf("the configuration denies tool %s", tool.Name)
	case PermissionAsk:
	default:
		if readOnly(tool) {
			return nil
		}
	}
	key := tool.Origin.Location + " " + tool.Name
	s.mu.Lock()
	always := s.allowed[key]
	t := s.turn
	s.mu.Unlock()
	if always {
		return nil
	}
	var id sdk.ToolCallId
	if t != nil {
		t.mu.Lock()
		id = t.ids[callKey{e.Agent, e.Call.ID}]
		t.mu.Unlock()
	}
	if tool.Annotations == nil || tool.Annotations.Title == "" {
		if d := s.toolDef(e); d.Annotations != nil {
			tool.Annotations = d.Annotations // with the tool's own title
		}
	}
	title, kind := toolTitle(tool), toolKind(tool)
	resp, err := s.c.client().RequestPermission(ctx, sdk.RequestPermissionRequest{
		SessionId: sdk.SessionId(s.id),
		ToolCall: sdk.ToolCallUpdate{ToolCallId: id, Title: &title, Kind: &kind,
			Status: sdk.Ptr(sdk.ToolCallStatusPending), RawInput: rawInput(e.Call.Arguments),
			Locations: locations(e.Call.Arguments)},
		Options: []sdk.PermissionOption{
			{Kind: sdk.PermissionOptionKindAllowOnce, Name: "Allow", OptionId: optionAllow},
			{Kind: sdk.PermissionOptionKindAllowAlways, Name: "Always allow " + title, OptionId: optionAllowAlways},
			{Kind: sdk.PermissionOptionKindRejectOnce, Name: "Reject", OptionId: optionReject},
		},
	})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		s.c.srv.log.Warn("permission not asked", "session", s.id, "tool", tool.Name, "err", err)
		return fmt.Errorf("the editor could not be asked for permission: %v", err)
	}
	if sel := resp.Outcome.Selected; sel != nil {
		switch sel.OptionId {
		case optionAllow:
			return nil
		case optionAllowAlways:
			s.mu.Lock()
			s.allowed[key] = true
			s.mu.Unlock()
			return nil
		}
	}
	return errDeclined
}

// listedName is the name of tool as its capability lists it (view.Tool.Qualified), where the
// view of agentName's scope serves it under another; else its name.
func (s *session) listedName(agentName string, tool agent.ToolDef) string {
	if isAgentOwn(tool.Origin) {
		return tool.Name
	}
	v, err := s.c.srv.cache.Get(context.Background(), ext.Scope{SessionID: s.id, AgentName: agentName})
	if err != nil {
		return tool.Name
	}
	if t, ok := v.Tool(tool.Name); ok && t.Qualified != "" {
		return t.Qualified
	}
	return tool.Name
}

// readOnly reports whether a tool runs without asking by default: the agent's own tools
// (reading resources, delegating, the plan), and tools annotated read-only and not
// destructive.
func readOnly(t agent.ToolDef) bool {
	if t.Origin.Kind == ext.OriginLocal && t.Origin.Location == "agent" {
		return true
	}
	a := t.Annotations
	return a != nil && a.ReadOnlyHint && (a.DestructiveHint == nil || !*a.DestructiveHint)
}

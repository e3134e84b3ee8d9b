package gateway

import (
	"context"
	"errors"
	"github.com/agentpool/agentpool/gateway/internal/mcpconv"
	"time"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/view"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The handlers route through the session's current view: a call reaches the capability that
// serves the name now, with arguments and _meta as the client sent them.

// callTool forwards a call with what goes with it: the client (ext.Client, for the server's
// requests), the client's progress token (the capability's progress reaches the client under
// it) and, for log messages, the record of a call in flight to the capability. Whatever the
// upstream sent ahead of its result is sent to the client before the result.
func (s *session) callTool(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	s.calls.Add(1)
	call := &ext.ToolCall{Name: req.Params.Name, Arguments: req.Params.Arguments, Meta: mcpconv.RawMeta(req.Params.Meta)}
	v := s.view.Load()
	if res, relist, ok := s.exp.CallOwn(v, call); ok {
		if relist {
			s.apply(nil)
		}
		return mcpconv.ToolResult(res)
	}
	call, bad := s.exp.Unwrap(v, call)
	if bad != nil {
		return mcpconv.ToolResult(bad)
	}
	ctx = ext.WithClient(ctx, caller{s: s, ss: req.Session, ctx: ctx})
	out := &s.out
	if s.stateless {
		// Every client shares the stateless server: a call's progress goes through an outbox
		// of its own, so that a client that stops reading holds up no other client's result.
		out = &outbox{onDrop: func(n int) {
			s.g.log.Warn("progress dropped: a stateless client does not keep up", "queued", maxOutbox, "dropped", n)
		}}
		defer out.close() // after flush
	}
	if tok := req.Params.GetProgressToken(); tok != nil {
		call.Progress = s.progressSink(ctx, out, req.Session, tok)
	}
	p, local, rerr := v.Route(call.Name)
	if rerr == nil {
		defer out.flush(ctx) // runs after done: what arrives later is not related to the call
		s.flight(ctx, p)
		defer s.landed(ctx, p)
	}
	start := time.Now()
	res, err := v.CallTool(ctx, call)
	if rerr == nil {
		s.callDone(ctx, p, local, start, resultOutcome(res, err))
	}
	if err != nil {
		return nil, rpcError(err)
	}
	return mcpconv.ToolResult(res)
}

func (s *session) getPrompt(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	ctx = ext.WithClient(ctx, caller{s: s, ss: req.Session, ctx: ctx})
	res, err := s.view.Load().GetCommand(ctx, &ext.CommandRequest{Name: req.Params.Name, Named: req.Params.Arguments})
	if err != nil {
		return nil, rpcError(err)
	}
	return mcpconv.PromptResult(res)
}

func (s *session) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	ctx = ext.WithClient(ctx, caller{s: s, ss: req.Session, ctx: ctx})
	cs, err := s.view.Load().ReadResource(ctx, uri)
	if err != nil {
		return nil, resourceError(uri, err)
	}
	return &mcp.ReadResourceResult{Contents: mcpconv.Contents(cs)}, nil
}

// resourceError is the JSON-RPC error of a failed read of uri: ext.ErrNotFound is the
// go-sdk's resource-not-found error, with a "did you mean" hint (ext.NotFoundError) or why
// the URI is kept out (view.ErrKeptOut) when there is one.
func resourceError(uri string, err error) error {
	if !errors.Is(err, ext.ErrNotFound) {
		return rpcError(err)
	}
	nf := mcp.ResourceNotFoundError(uri).(*jsonrpc.Error)
	if near := (*ext.NotFoundError)(nil); errors.As(err, &near) {
		nf.Message += " (" + near.Hint() + ")"
	}
	if errors.Is(err, view.ErrKeptOut) {
		nf.Message += ": " + err.Error()
	}
	return nf
}

// complete routes completion/complete to the capability behind the prompt or template named,
// when it completes (ext.Completer), and the session's own skill-files template to the skill
// sources (completeSkillPath); anything else gets an empty completion.
func (s *session) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	p := req.Params
	empty := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}
	if p == nil || p.Ref == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "completion/complete: no ref"}
	}
	v := s.view.Load()
	er := &ext.CompleteRequest{
		Ref:      ext.CompleteRef{Type: p.Ref.Type, Name: p.Ref.Name, URI: p.Ref.URI},
		Argument: ext.CompleteArgument{Name: p.Argument.Name, Value: p.Argument.Value},
	}
	if p.Context != nil {
		er.Context = p.Context.Arguments
	}
	var owner string
	switch p.Ref.Type {
	case "ref/prompt":
		c, ok := v.Command(p.Ref.Name)
		if !ok {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "completion/complete: unknown prompt " + p.Ref.Name}
		}
		owner = c.Capability
		// The qualified name reaches the command in its own source ("<server>:<prompt>").
		if c.QualifiedName != "" {
			er.Ref.Name = c.QualifiedName
		}
	case "ref/resource":
		for _, t := range v.Templates {
			if t.URITemplate == p.Ref.URI {
				owner = t.Capability
				break
			}
		}
		if owner == "" && p.Ref.URI == skillFiles.URITemplate {
			return s.completeSkillPath(ctx, er)
		}
	}
	if owner == "" {
		return empty, nil
	}
	for _, r := range s.g.reg.Registrations(s.scope) {
		if r.Capability.Name() != owner {
			continue
		}
		c, ok := r.Capability.(ext.Completer)
		if !ok {
			return empty, nil
		}
		res, err := c.Complete(ctx, er)
		if err != nil {
			return nil, rpcError(err)
		}
		return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: res.Values, Total: res.Total, HasMore: res.HasMore}}, nil
	}
	return empty, nil
}

// rpcError turns a capability's error into a JSON-RPC error. An upstream server's own
// JSON-RPC error passes through with its code, message and data; a name or URI that does not
// exist or is refused is invalid params; anything else is an internal error carrying the
// message, which names what failed and where.
func rpcError(err error) error {
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		return &jsonrpc.Error{Code: we.Code, Message: we.Message, Data: we.Data}
	}
	code := int64(jsonrpc.CodeInternalError)
	for _, e := range []error{ext.ErrNotFound, ext.ErrPathTraversal, ext.ErrUnknownScheme, ext.ErrInvalidURI} {
		if errors.Is(err, e) {
			code = jsonrpc.CodeInvalidParams
		}
	}
	return &jsonrpc.Error{Code: code, Message: err.Error()}
}

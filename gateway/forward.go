package gateway

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentpool/agentpool/ext"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// This file forwards what passes between a session's client and the upstream servers besides
// the calls themselves: the servers' requests to their client (sampling, elicitation, roots)
// and the progress of calls. Log messages are in logs.go, subscriptions in subscribe.go.

// caller is a session's client as the capabilities see it (ext.Client), for one call: a
// server's request made during the call is sent on the call's own stream (related to it, as
// a server answering directly would send it), and one made after the call on the session's.
//
// The session's own caller (ss nil, ctx a background one) is the client of the session's
// servers before any call: it waits for the client to be initialized before asking it.
type caller struct {
	s   *session
	ss  *mcp.ServerSession
	ctx context.Context // the call's
}

// sessionCaller is the client of the session as a whole, for what its servers ask outside
// any call (a session-scoped server asking for roots as soon as it starts).
func (s *session) sessionCaller() caller { return caller{s: s, ctx: context.Background()} }

// client returns the client connection, once the client is initialized.
func (c caller) client(ctx context.Context) (*mcp.ServerSession, error) {
	if c.s.stateless {
		return nil, &jsonrpc.Error{Code: codeServerError, Message: "a server's request to its client is " + errStateless + "send it on"}
	}
	if c.s.connLife.Err() != nil {
		// DELETE, the idle timeout, a dropped stdio: asked, the request would wait for its
		// timeout, and a shared server refuses its other clients while it waits.
		return nil, &jsonrpc.Error{Code: codeServerError, Message: fmt.Sprintf("the client of session %s is gone", c.s.id)}
	}
	if c.ss != nil {
		return c.ss, nil
	}
	select {
	case <-c.s.ready:
		return c.s.conn(), nil
	case <-c.s.ended:
		return nil, &jsonrpc.Error{Code: codeServerError, Message: fmt.Sprintf("session %s ended", c.s.id)}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

var _ ext.Client = caller{}

func (c caller) SessionID() string { return c.s.id }

func (c caller) CreateMessage(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
	ss, err := c.client(ctx)
	if err != nil {
		return nil, err
	}
	if caps := caps(ss); caps == nil || caps.Sampling == nil {
		return nil, c.undeclared("sampling")
	}
	var p mcp.CreateMessageWithToolsParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	ctx, done := c.related(ctx)
	defer done()
	res, err := ss.CreateMessageWithTools(ctx, &p)
	return encodeResult(res, err)
}

func (c caller) Elicit(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
	ss, err := c.client(ctx)
	if err != nil {
		return nil, err
	}
	if caps := caps(ss); caps == nil || caps.Elicitation == nil {
		return nil, c.undeclared("elicitation")
	}
	var p mcp.ElicitParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	ctx, done := c.related(ctx)
	defer done()
	res, err := ss.Elicit(ctx, &p)
	return encodeResult(res, err)
}

func (c caller) ListRoots(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
	ss, err := c.client(ctx)
	if err != nil {
		return nil, err
	}
	if caps := caps(ss); caps == nil || caps.RootsV2 == nil {
		return nil, c.undeclared("roots")
	}
	var p mcp.ListRootsParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	ctx, done := c.related(ctx)
	defer done()
	res, err := ss.ListRoots(ctx, &p)
	return encodeResult(res, err)
}

// caps are the capabilities the client declared at initialize.
func caps(ss *mcp.ServerSession) *mcp.ClientCapabilities {
	if ip := ss.InitializeParams(); ip != nil {
		return ip.Capabilities
	}
	return nil
}

// undeclared is the error of a request for a capability the client did not declare. Not
// -32601, which the client would have answered: the go-sdk replaces the message of a -32601
// with a bare "method not found", and the server's user should learn why.
func (c caller) undeclared(what string) error {
	return &jsonrpc.Error{Code: codeServerError,
		Message: fmt.Sprintf("the client of session %s did not declare %s", c.s.id, what)}
}

// related returns a context tied to the call (so the request goes on its stream) while the
// call runs, else to the session's connection; it ends when ctx (the upstream's request)
// ends, and when the client's connection does: a client gone answers nothing.
func (c caller) related(ctx context.Context) (context.Context, func()) {
	base := c.ctx
	if base.Err() != nil {
		base = context.Background() // the call has returned: the session's own stream
	}
	rctx, cancel := context.WithCancel(base)
	stop := context.AfterFunc(ctx, cancel)
	stopConn := context.AfterFunc(c.s.connLife, cancel)
	return rctx, func() { stop(); stopConn(); cancel() }
}

func decodeParams(params json.RawMessage, into any) error {
	if len(params) == 0 || string(params) == "null" {
		return nil
	}
	if err := json.Unmarshal(params, into); err != nil {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid params: " + err.Error()}
	}
	return nil
}

func encodeResult(res any, err error) (json.RawMessage, error) {
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(res)
	if err != nil {
		return nil, fmt.Errorf("encode result: %w", err)
	}
	return b, nil
}

// progressSink returns the sink of a call's progress: each notification goes to the client
// with the client's own token, on the call's stream, in order, through out, the session's
// outbox or the call's own (the sink must not block the upstream's reader).
func (s *session) progressSink(ctx context.Context, out *outbox, ss *mcp.ServerSession, token any) func(ext.Progress) {
	return func(p ext.Progress) {
		params := &mcp.ProgressNotificationParams{ProgressToken: token, Progress: p.Progress, Total: p.Total, Message: p.Message}
		out.send(len(p.Message), func() {
			if err := ss.NotifyProgress(ctx, params); err != nil {
				s.g.log.Debug("progress not sent", "session", s.id, "err", err)
			}
		})
	}
}

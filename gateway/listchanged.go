package gateway

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The list_changed notifications a session's server sends.
const (
	toolsListChanged     = "notifications/tools/list_changed"
	promptsListChanged   = "notifications/prompts/list_changed"
	resourcesListChanged = "notifications/resources/list_changed"
)

// ownNotification marks a context carrying a list_changed the gateway sends itself.
type ownNotification struct{}

// listChangedOnce is the session server's sending middleware that makes each apply one
// list_changed per kind it changed. The go-sdk sends one 10 ms after the last add or remove
// of a kind, so an apply whose changes are further apart than that (a loaded machine, a
// garbage collection) sent several, one per gap: its own are dropped, and apply sends one
// per kind through sendListChanged once the server holds the whole update.
func (s *session) listChangedOnce(next mcp.MethodHandler) mcp.MethodHandler {
	s.sendNext = next
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case toolsListChanged, promptsListChanged, resourcesListChanged:
			if ctx.Value(ownNotification{}) == nil {
				return nil, nil
			}
		}
		return next(ctx, method, req)
	}
}

// sendListChanged queues one notification of each method on the session's outbox (never
// dropped: a client that misses one keeps a stale list), after what is already queued. Before
// the client connected there is no one to tell: its first listings see the update.
func (s *session) sendListChanged(methods ...string) {
	ss := s.conn()
	if ss == nil || len(methods) == 0 {
		return
	}
	for _, m := range methods {
		var req mcp.Request
		switch m {
		case toolsListChanged:
			req = &mcp.ServerRequest[*mcp.ToolListChangedParams]{Session: ss, Params: &mcp.ToolListChangedParams{}}
		case promptsListChanged:
			req = &mcp.ServerRequest[*mcp.PromptListChangedParams]{Session: ss, Params: &mcp.PromptListChangedParams{}}
		case resourcesListChanged:
			req = &mcp.ServerRequest[*mcp.ResourceListChangedParams]{Session: ss, Params: &mcp.ResourceListChangedParams{}}
		default:
			continue
		}
		s.out.push(func() {
			ctx, cancel := context.WithTimeout(context.WithValue(context.Background(), ownNotification{}, true), s.g.opts.CloseTimeout)
			defer cancel()
			if _, err := s.sendNext(ctx, m, req); err != nil {
				s.g.log.Debug("list_changed not sent", "session", s.id, "method", m, "err", err)
			}
		}, true)
	}
}

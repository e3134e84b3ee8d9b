package gateway

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A request's handling on the go-sdk path ends with whatever ends the client's interest in
// it, as on the pass-through path: the session's connection (DELETE, idle timeout, Close, a
// closed stdio transport) and the HTTP POST that carried it (the client dropped it; with no
// event store the answer can never be delivered). The go-sdk runs a session's handlers under
// the context of its connection only, so a call would run on upstream for as long as the
// upstream takes, its progress sent to nobody, and a server's sampling request during it
// would wait for a client that is gone while the server's other clients are refused.

// postHeader carries, on a POST the go-sdk serves for a session, the key of its entry in
// the session's posts: the go-sdk hands a request's HTTP header to its handler
// (mcp.RequestExtra), not the request's context. The gateway sets it; a client's own value
// is replaced.
const postHeader = "Agentpool-Post"

// posts are the POSTs of a session that the go-sdk is serving, by postHeader's key.
type posts struct {
	seq atomic.Uint64
	mu  sync.Mutex
	m   map[string]context.Context // key → the POST's context
}

// hold records r, a POST of the session about to be served by the go-sdk, until release.
func (p *posts) hold(r *http.Request) (release func()) {
	key := strconv.FormatUint(p.seq.Add(1), 36)
	r.Header.Set(postHeader, key)
	p.mu.Lock()
	if p.m == nil {
		p.m = map[string]context.Context{}
	}
	p.m[key] = r.Context()
	p.mu.Unlock()
	return func() {
		p.mu.Lock()
		delete(p.m, key)
		p.mu.Unlock()
	}
}

// of returns the context of the POST that carried req, if it was held: a POST released
// already (its handling returned before the request's handler started: it was dropped) gives
// a context done already.
func (p *posts) of(req mcp.Request) (context.Context, bool) {
	extra := req.GetExtra()
	if extra == nil || extra.Header == nil {
		return nil, false
	}
	key := extra.Header.Get(postHeader)
	if key == "" {
		return nil, false
	}
	p.mu.Lock()
	ctx, ok := p.m[key]
	p.mu.Unlock()
	if !ok {
		return gone, true
	}
	return ctx, true
}

// gone is a context done already.
var gone = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// endWithRequest ends a request's handling (a call's context, and with it the upstream's
// call) when the HTTP request that carried it ends or the session's connection does (the
// top of this file). Notifications are left alone: they are handled after their POST was
// answered (202).
func (s *session) endWithRequest(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if strings.HasPrefix(method, "notifications/") {
			return next(ctx, method, req)
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		if rctx, ok := ctx.Value(requestKey{}).(context.Context); ok {
			defer context.AfterFunc(rctx, cancel)()
		} else if rctx, ok := s.posts.of(req); ok {
			defer context.AfterFunc(rctx, cancel)()
		}
		defer context.AfterFunc(s.connLife, cancel)()
		return next(ctx, method, req)
	}
}

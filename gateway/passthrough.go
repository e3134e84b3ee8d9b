package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// A tools/call is the gateway's hot path, and a call through the go-sdk on both sides costs
// more than the call itself (the SDK decodes each message with a fresh 32 KiB decoder, twice
// per message, then the params, then the result, on both the client's side and the upstream's).
// So an HTTP POST carrying one tools/call is passed through when nothing else has to travel
// with it: the gateway reads the request's id, tool name, arguments and _meta, routes the name
// through the session's view and, when the capability serving it passes calls through
// (ext.RawToolCaller: an MCP server on a pooled stdio connection), writes the upstream's result
// bytes back as the JSON response, under the client's id. No go-sdk code runs for it.
//
// It does only when the answer is the whole exchange:
//   - the session is initialized and its client did not declare sampling or elicitation (an
//     upstream's request during the call must reach the client on the call's own stream, which
//     only the go-sdk path has), and has not set a log level (log messages during a call are
//     sent on its stream, ahead of the result);
//   - the request is one JSON-RPC request (not a batch) with a string or number id, carries no
//     progress token, and accepts application/json;
//   - the go-sdk would take it: an Mcp-Protocol-Version header, if any, is a version the
//     gateway supports, and _meta asks for no version of its own (SEP-2575; both refused);
//   - the tool is in the view and its capability passes calls through.
//
// Anything else takes the go-sdk path. A notifications/cancelled naming a passed-
// through call cancels it (upstream too; not in stateless mode, where request ids are not
// unique across clients); the client's dropping the request does as well, and
// so does the end of the session's connection (DELETE, idle timeout, Close), after which the
// session's id is the go-sdk's to refuse (404) while its end is still under way.
// Either path counts as activity for the idle timeout (idle.go).

// passState is what decides whether a session's calls may pass through, and the calls that do.
type passState struct {
	ok atomic.Bool // initialized, no sampling/elicitation, no log level

	mu    sync.Mutex
	calls map[string]context.CancelCauseFunc // the client's request id (JSON) → cancels the call
	n     atomic.Int64                       // len(calls): a cancel is looked for while calls run, ok or not
	ended bool                               // the session's connection ended: calls are cancelled
	sid   []string                           // the session's id, as the answers' header holds it
	// header: the header lines of the session's answers on the lane (laneHeader)
	header atomic.Pointer[[]byte]
}

// add records a call's cancel under key, its request id, and reports true; false when a
// call of that id is in flight. A call recorded after the session's connection (connLife)
// ended is cancelled at once; one in flight when it ends, then (one watch a session).
func (p *passState) add(key string, cancel context.CancelCauseFunc, sid string, connLife context.Context) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, dup := p.calls[key]; dup {
		return false
	}
	if p.calls == nil {
		p.calls, p.sid = map[string]context.CancelCauseFunc{}, []string{sid}
		context.AfterFunc(connLife, func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			p.ended = true
			for _, c := range p.calls {
				c(nil)
			}
		})
	}
	p.calls[key] = cancel
	p.n.Add(1)
	if p.ended {
		cancel(nil)
	}
	return true
}

// remove forgets the call add recorded under key.
func (p *passState) remove(key string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.calls, key)
	p.n.Add(-1)
}

// errCancelledByClient is the cause of a call cancelled by the client's notifications/cancelled.
var errCancelledByClient = errors.New("cancelled by the client")

// passThrough serves the request env holds through the pass-through path and reports true, or
// reports false having written nothing (the go-sdk path takes the request). It releases a
// before it writes. On a plain keep-alive connection whose server has a lane (lane.go), the
// connection is the lane's after the answer.
func (s *session) passThrough(w http.ResponseWriter, r *http.Request, env *envelope, a *admission) bool {
	m := env.one()
	if m == nil || !m.HasMethod || !s.passing() {
		return false
	}
	switch m.Method {
	case "tools/call":
		if !s.pass.ok.Load() {
			return false
		}
	case "notifications/cancelled":
		if s.stateless {
			return false // ids are each client's own: one cannot name another's call (below)
		}
		return s.cancelPassed(w, m.Params) // a notification: nothing admitted
	default:
		return false
	}
	pc, ok := s.passable(r.Header, m)
	if !ok {
		return false
	}
	if !s.startPass(r.Context(), &pc) {
		return false
	}
	status, buf := s.callEnded(r.Context(), &pc, a)
	if status == http.StatusAccepted {
		w.WriteHeader(status)
		putAnswer(buf)
		return true
	}
	h := w.Header()
	h["Content-Type"] = jsonType // shared, never changed: no slice a call
	if !s.stateless {
		h[sessionHeader] = s.pass.sid
	}
	h["Content-Length"] = []string{strconv.Itoa(len(*buf))}
	if sw, ok := w.(stallWriter); ok {
		// Written out here, within the stall guard: what net/http still holds when the
		// handler returns, it writes with no deadline, forever to a client that stopped
		// reading. Its length is set so that the flush does not make it chunked.
		_ = sw.rc.SetWriteDeadline(time.Now().Add(writeStall))
		sw.ResponseWriter.WriteHeader(status)
		_, _ = sw.ResponseWriter.Write(*buf)
		_ = sw.rc.Flush()
		_ = sw.rc.SetWriteDeadline(time.Time{})
	} else {
		w.WriteHeader(status)
		_, _ = w.Write(*buf)
	}
	putAnswer(buf)
	s.g.toLane(w, r)
	return true
}

// passing reports whether s may pass a call through, or cancel one that is (a call passed
// through stays cancellable when the session stopped passing calls through, a log level set
// while it runs: its cancel is this path's, the go-sdk knows no such call).
func (s *session) passing() bool {
	if !s.pass.ok.Load() && s.pass.n.Load() == 0 {
		return false
	}
	return s.connLife.Err() == nil // a session whose connection ended is the go-sdk's to refuse (404)
}

// passCall is a tools/call the pass-through path takes: what passable found for callPassed.
type passCall struct {
	id    json.RawMessage
	p     ext.ToolProvider
	rc    ext.RawToolCaller
	local string
	call  ext.ToolCall

	// startPass's
	ctx    context.Context
	cancel context.CancelCauseFunc
	key    string // recorded under (s.pass)
	stop   func() bool
	client caller // the call's client, which its context carries (a pointer to it: no copy on the heap)
}

// passable reports whether the tools/call m, with the request's header h, passes through
// (the package doc's conditions past the session's own), and what the call is.
func (s *session) passable(h http.Header, m *wire.Message) (pc passCall, ok bool) {
	if !wire.AcceptsJSON(h.Values("Accept")) {
		return pc, false
	}
	params, err := wire.DecodeCallParams(m.Params)
	if err != nil {
		return pc, false // the go-sdk path reports it
	}
	if !wire.PlainID(m.ID) || !wire.PlainMeta(params.Meta) || !versionOK(h.Get("Mcp-Protocol-Version")) {
		return pc, false
	}
	v := s.view.Load()
	p, local, err := v.Route(params.Name)
	if err != nil || !s.exp.Lists(v, params.Name) {
		return pc, false
	}
	rc, ok := p.(ext.RawToolCaller)
	if !ok {
		return pc, false
	}
	return passCall{id: m.ID, p: p, rc: rc, local: local, call: ext.ToolCall{Name: local, Arguments: params.Arguments, Meta: params.Meta}}, true
}

// startPass records the call pc under its id, with its context (ended when reqCtx ends, its
// request's, when the client cancels it, or the session's connection ends), and reports
// true; false when a call of that id is in flight (the go-sdk path reports the duplicate).
// A true is paired with one endPass.
func (s *session) startPass(reqCtx context.Context, pc *passCall) bool {
	pc.ctx, pc.cancel = context.WithCancelCause(reqCtx)
	// In stateless mode every client shares the one server and numbers its requests itself,
	// so a request id names no call: the calls are not recorded, and a client cancels its call
	// by dropping the request (a notifications/cancelled is another request, perhaps to another
	// replica; the go-sdk path ignores it). Recorded by id, one client's cancel would end
	// another's call.
	if s.stateless {
		pc.stop = context.AfterFunc(s.connLife, func() { pc.cancel(nil) })
		return true
	}
	pc.key = string(pc.id)
	if !s.pass.add(pc.key, pc.cancel, s.id, s.connLife) {
		pc.cancel(nil)
		return false
	}
	return true
}

// endPass forgets the call startPass recorded.
func (s *session) endPass(pc *passCall) {
	if pc.stop != nil {
		pc.stop()
	} else {
		s.pass.remove(pc.key)
	}
	pc.cancel(nil)
}

// callPassed makes the call pc, started (startPass) for a request whose context is reqCtx,
// releases a, and returns the answer's status and body (putAnswer once written). A call
// cancelled by the client's notification answers 202 with no body.
func (s *session) callPassed(reqCtx context.Context, pc *passCall, a *admission) (status int, buf *[]byte) {
	ctx := pc.ctx
	s.calls.Add(1)
	pc.client = caller{s: s, ss: s.conn(), ctx: ctx}
	ctx = ext.WithClient(ctx, &pc.client)
	s.flight(ctx, pc.p)
	start := time.Now()
	res, err := pc.rc.CallToolRaw(ctx, &pc.call)
	s.landed(ctx, pc.p)
	o := callOK
	if err != nil {
		o = callError
	} else if rawIsError(res) {
		o = callToolError
	}
	s.callDone(ctx, pc.p, pc.local, start, o)
	a.release()
	buf = answers.Get().(*[]byte)
	status = http.StatusOK
	if ctx.Err() != nil && reqCtx.Err() == nil {
		if context.Cause(ctx) == errCancelledByClient {
			// Cancelled by the client's notification: the request gets no answer (MCP: the
			// receiver of a cancelled request does not respond); the HTTP exchange still ends.
			*buf = (*buf)[:0]
			return http.StatusAccepted, buf
		}
		// The session ended during the call (DELETE, idle timeout, Close): 404, as the
		// go-sdk answers a request of a session it no longer has.
		status, err = http.StatusNotFound, &jsonrpc.Error{Code: codeServerError, Message: "session " + s.id + " ended"}
		if s.stateless {
			status, err = http.StatusServiceUnavailable, &jsonrpc.Error{Code: codeServerError, Message: ErrClosed.Error()}
		}
	}
	if err != nil {
		*buf = wire.AppendError((*buf)[:0], pc.id, rpcError(err).(*jsonrpc.Error))
	} else {
		*buf = wire.AppendResult((*buf)[:0], pc.id, res)
	}
	return status, buf
}

// callEnded is callPassed, then endPass however callPassed ends (a panic included).
func (s *session) callEnded(reqCtx context.Context, pc *passCall, a *admission) (status int, buf *[]byte) {
	defer s.endPass(pc)
	return s.callPassed(reqCtx, pc, a)
}

// putAnswer gives back a buffer callPassed returned, once written.
func putAnswer(buf *[]byte) {
	if cap(*buf) <= 64<<10 {
		answers.Put(buf) // not one large answer's buffer for good
	}
}

// answers are the buffers the pass-through path writes its answers in.
var answers = sync.Pool{New: func() any { return new([]byte) }}

// jsonType is the Content-Type header of an answer.
var jsonType = []string{"application/json"}

// cancelPassed handles a notifications/cancelled (its params): one naming a passed-through
// call cancels it and is answered 202; any other is left to the go-sdk.
func (s *session) cancelPassed(w http.ResponseWriter, params json.RawMessage) bool {
	var n struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &n) != nil || !wire.PlainID(n.RequestID) {
		return false
	}
	s.pass.mu.Lock()
	cancel := s.pass.calls[string(n.RequestID)]
	s.pass.mu.Unlock()
	if cancel == nil {
		return false
	}
	cancel(errCancelledByClient)
	w.WriteHeader(http.StatusAccepted)
	return true
}

// versionOK reports whether a request's Mcp-Protocol-Version header is one the go-sdk path
// would take (absent, or a version the gateway supports): any other it refuses with 400.
func versionOK(v string) bool {
	return v == "" || slices.Contains(supportedVersions, v)
}

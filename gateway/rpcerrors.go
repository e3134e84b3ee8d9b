package gateway

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/agentpool/agentpool/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// encodableErrors makes every JSON-RPC error a handler returns one the go-sdk can encode: an
// answer it cannot encode ends the client's session, and the request waits for ever. The
// SDK's mcp.ResourceNotFoundError, which its own resources/read returns for a URI that no
// template matches, quotes the URI with Go's %q: not JSON when the URI holds DEL or bytes
// that are not UTF-8. Such data is made again as JSON: {"uri": …} for resources/read, else a
// JSON string of the data as it was.
func encodableErrors(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		var we *jsonrpc.Error
		if err == nil || !errors.As(err, &we) || we.Data == nil || json.Valid(we.Data) {
			return res, err
		}
		fixed := *we
		if r, ok := req.(*mcp.ReadResourceRequest); ok && r.Params != nil && we.Code == mcp.CodeResourceNotFound {
			fixed.Data, _ = json.Marshal(struct {
				URI string `json:"uri"`
			}{r.Params.URI})
		} else {
			fixed.Data, _ = json.Marshal(string(we.Data))
		}
		return res, &fixed
	}
}

// blockedCalls answers a tools/call of a tool the view keeps out (view.View.Blocked: a
// definition that changed since the user approved it), a tools/call of a tool of the view the
// session does not list (search mode: exposure.Session.NotListed), a prompts/get of a prompt
// kept out (view.View.BlockedCommand), or a resources/read of a URI only definitions kept out
// name (view.View.BlockedResource, and view.View.KeptOut when the read found nothing), with
// the reason, where the go-sdk would say only "unknown tool", "unknown prompt" or "Resource
// not found".
func (s *session) blockedCalls(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if r, ok := req.(*mcp.CallToolRequest); ok && r.Params != nil {
			v := s.view.Load()
			if err := cmp.Or(v.Blocked(r.Params.Name), s.exp.NotListed(v, r.Params.Name)); err != nil {
				return nil, rpcError(err)
			}
		}
		if r, ok := req.(*mcp.GetPromptRequest); ok && r.Params != nil {
			if err := s.view.Load().BlockedCommand(r.Params.Name); err != nil {
				return nil, rpcError(err)
			}
		}
		if r, ok := req.(*mcp.ReadResourceRequest); ok && r.Params != nil {
			v := s.view.Load()
			if err := v.BlockedResource(r.Params.URI); err != nil {
				return nil, resourceError(r.Params.URI, err)
			}
			res, err := next(ctx, method, req)
			if je := (*jsonrpc.Error)(nil); errors.As(err, &je) && je.Code == mcp.CodeResourceNotFound {
				if kept := v.KeptOut(r.Params.URI); kept != nil {
					return nil, resourceError(r.Params.URI, kept)
				}
			}
			return res, err
		}
		return next(ctx, method, req)
	}
}

// plainErrors is the ResponseWriter the go-sdk answers a session's POST through: an error it
// would send as plain text (http.Error: a batch, an id that is null or an object, a jsonrpc
// other than "2.0", params of the wrong type, …) is held back and sent as a JSON-RPC error
// with the same status and message, since a JSON-RPC client reads only that. Anything else
// (JSON, an SSE stream) passes through untouched, flushes included. The admission is released
// just before a write that carries a JSON-RPC response (the go-sdk writes an
// event whole) or the held error.
type plainErrors struct {
	http.ResponseWriter
	status    int
	held      *bytes.Buffer // the plain-text error being held back; nil when passing through
	started   bool
	admission admission
}

func (w *plainErrors) WriteHeader(code int) {
	if w.started {
		return
	}
	w.started = true
	if code >= 400 && strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain") {
		w.status, w.held = code, new(bytes.Buffer)
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *plainErrors) Write(p []byte) (int, error) {
	if !w.started {
		w.WriteHeader(http.StatusOK)
	}
	if w.held != nil {
		return w.held.Write(p)
	}
	if w.admission.n > 0 && wire.HasResponse(w.Header().Get("Content-Type"), p) {
		w.admission.release()
	}
	return w.ResponseWriter.Write(p)
}

func (w *plainErrors) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok && w.held == nil {
		f.Flush()
	}
}

func (w *plainErrors) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// finish sends the held error, if any, as a JSON-RPC invalid request answering body's id
// (null when it has none usable).
func (w *plainErrors) finish(body []byte) {
	if w.held == nil {
		return
	}
	var m struct {
		ID any `json:"id"`
	}
	var id jsonrpc.ID
	if json.Unmarshal(body, &m) == nil {
		id, _ = jsonrpc.MakeID(m.ID)
	}
	w.Header().Del("X-Content-Type-Options")
	w.admission.release()
	writeRPCError(w.ResponseWriter, w.status, id, jsonrpc.CodeInvalidRequest, "invalid request: "+strings.TrimSpace(w.held.String()))
}

package gateway

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/gateway/internal/heldbody"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionHeader is the streamable HTTP transport's session header.
const sessionHeader = "Mcp-Session-Id"

// codeServerError is the JSON-RPC code of a request the server cannot take now (the session
// cap, a gateway shutting down): in the implementation-defined range -32000 to -32099.
const codeServerError = -32000

// pendingKey carries the session opened for an initialize request to getServer.
type pendingKey struct{}

// Handler returns the streamable HTTP handler of the gateway (mount it at /mcp). Every
// request passes the checks first (middleware.go: Host and Origin, 403; the bearer token when
// Options.Token or Options.Auth is set, 401; a session another user opened, 403; a POST's body
// size, 413), and a POST without a session opens one only when it carries initialize. With
// Options.Stateless it serves every POST on its own instead (stateless.go).
func (g *Gateway) Handler() http.Handler {
	if g.stateless != nil {
		return g.stateless.handler()
	}
	// No SessionTimeout: the idle timeout is the gateway's own (idle.go), since calls passed
	// through never reach this handler.
	h := &sessionHTTP{g: g, sdk: mcp.NewStreamableHTTPHandler(g.serverFor, g.sdkOptions(false))}
	post := holdBody(g.opts.MaxBodyBytes)(http.HandlerFunc(h.post))
	return chain(guardedWrites, g.userChecks, g.requireSessionUser)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodPost:
			post.ServeHTTP(w, r)
		case http.MethodDelete:
			// The session ends now for its calls passed through, which the go-sdk's closing
			// of the connection neither waits for nor sees (passthrough.go).
			s := g.lookup(r.Header.Get(sessionHeader))
			if s == nil {
				h.sdk.ServeHTTP(w, r)
				return
			}
			s.connGone()
			sw := &statusWriter{ResponseWriter: w}
			h.sdk.ServeHTTP(sw, r)
			if sw.code/100 != 2 {
				// Refused (a protocol version it does not know): the session, its calls
				// ended and no longer counted against its user's cap, ends all the same.
				s.close()
			}
		case http.MethodGet:
			h.stream(w, r)
		default:
			h.sdk.ServeHTTP(w, r)
		}
	}))
}

// stream serves a GET, the session's stream, which the idle timer follows: a client whose
// stream closed may have gone (idle.go).
func (h *sessionHTTP) stream(w http.ResponseWriter, r *http.Request) {
	s := h.g.lookup(r.Header.Get(sessionHeader))
	if s == nil {
		h.sdk.ServeHTTP(w, r)
		return
	}
	sw := &statusWriter{ResponseWriter: w}
	s.idle.streamBegin()
	defer func() { s.idle.streamEnd(sw.code == http.StatusOK) }()
	h.sdk.ServeHTTP(sw, r)
}

// statusWriter records the status written.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(p)
}

func (w *statusWriter) Flush() {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// sdkOptions are the options of the go-sdk's streamable HTTP handler under the gateway's.
func (g *Gateway) sdkOptions(stateless bool) *mcp.StreamableHTTPOptions {
	return &mcp.StreamableHTTPOptions{
		Stateless:           stateless,
		Logger:              g.opts.Logger,
		MaxRequestBodyBytes: g.opts.MaxBodyBytes,
		// requireHost has applied hostAllowed, which also passes Auth.Resource's host.
		DisableLocalhostProtection: g.opts.Auth != nil && g.opts.Auth.Resource != "",
	}
}

// sessionHTTP serves the requests that passed the checks, session by session.
type sessionHTTP struct {
	g   *Gateway
	sdk http.Handler // the go-sdk's streamable HTTP handler, over serverFor
}

// post serves a POST, its body held (holdBody): one without a session opens one; one of a
// live session takes the pass-through path or the go-sdk's; one of a session the gateway
// does not know is left to the go-sdk (404).
func (h *sessionHTTP) post(w http.ResponseWriter, r *http.Request) {
	r.Header.Del(postHeader) // the gateway's own (posts.go)
	body := heldbody.Of(r)
	env := decodeEnvelope(body) // once: the checks and the pass-through path share it
	if discoverRefused(w, env) {
		return
	}
	sid := r.Header.Get(sessionHeader)
	if env.batch && env.err == nil {
		var s *session
		if sid != "" {
			if s = h.g.lookup(sid); s == nil {
				h.sdk.ServeHTTP(w, r) // 404
				return
			}
		}
		h.serveBatch(w, r, env, s)
		return
	}
	if sid == "" {
		h.g.serveNew(w, r, env, h.sdk)
		return
	}
	s := h.g.lookup(sid)
	if s == nil {
		h.sdk.ServeHTTP(w, r)
		return
	}
	s.idle.begin()
	defer s.idle.end()
	a, ok := h.g.inflight.admitted(w, env, s, h.g.opts.MaxInflight)
	if !ok {
		return
	}
	defer a.release()
	if s.passThrough(w, r, env, &a) {
		return
	}
	if rpcRefused(w, env) {
		return
	}
	defer s.posts.hold(r)()
	serveSDK(h.sdk, w, r, body, a.take())
}

// rpcRefused answers what the go-sdk would refuse in plain text (checkMessage) with a
// JSON-RPC error, since a JSON-RPC client reads only that, and reports whether it did.
func rpcRefused(w http.ResponseWriter, env *envelope) bool {
	id, code, msg := checkMessage(env)
	if code == 0 {
		return false
	}
	status := http.StatusOK // a well-formed request with an error answer
	if code == jsonrpc.CodeParseError {
		status = http.StatusBadRequest
	}
	writeRPCError(w, status, id, code, msg)
	return true
}

// serveSDK serves r with sdk, any error it answers in plain text sent as a JSON-RPC error; a is
// released when the answer is written, or at the latest when sdk returns.
func serveSDK(sdk http.Handler, w http.ResponseWriter, r *http.Request, body []byte, a admission) {
	pw := &plainErrors{ResponseWriter: w, admission: a}
	defer pw.admission.release()
	sdk.ServeHTTP(pw, r)
	pw.finish(body)
}

// serveNew handles a POST without a session: an initialize opens a session, anything else
// is refused, since it would only create a session that ends with the request.
func (g *Gateway) serveNew(w http.ResponseWriter, r *http.Request, env *envelope, sdk http.Handler) {
	id, isInit, err := initializeIn(env)
	if err != nil {
		writeRPCError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeParseError, "parse error: "+err.Error())
		return
	}
	if !isInit {
		writeRPCError(w, http.StatusBadRequest, id, jsonrpc.CodeInvalidRequest,
			"no "+sessionHeader+" header: a session starts with initialize")
		return
	}
	s, err := g.open(r.Context(), rand.Text())
	if err != nil {
		status, code := http.StatusInternalServerError, int64(jsonrpc.CodeInternalError)
		switch {
		case errors.Is(err, ErrClosed):
			status, code = http.StatusServiceUnavailable, codeServerError
		case errors.Is(err, ErrTooManySessions), errors.Is(err, ErrNotReady), errors.Is(err, ext.ErrLimit):
			// A JSON-RPC error answer, not 503: clients treat 503 as transient and retry
			// without showing why; this says what the cap is.
			status, code = http.StatusOK, codeServerError
		}
		g.log.Warn("session refused", "err", err)
		writeRPCError(w, status, id, code, err.Error())
		return
	}
	sdk.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), pendingKey{}, s)))
	if s.conn() == nil {
		s.end() // initialize failed: the go-sdk dropped the session
		return
	}
	s.idle.arm(g.opts.IdleTimeout, g.opts.SessionGrace, s.close)
}

// serverFor is the go-sdk's getServer: the server of the session the request names, or of
// the session opened for it.
func (g *Gateway) serverFor(r *http.Request) *mcp.Server {
	if s, ok := r.Context().Value(pendingKey{}).(*session); ok {
		return s.server
	}
	if s := g.lookup(r.Header.Get(sessionHeader)); s != nil {
		return s.server
	}
	return nil
}

// writeRPCError answers with a JSON-RPC error: the go-sdk client reads it as the error of
// its call, where a plain-text body would only say the HTTP status.
// An answer to a message whose id could not be read has "id": null, as JSON-RPC 2.0 requires
// (the go-sdk's encoder leaves the id out).
func writeRPCError(w http.ResponseWriter, status int, id jsonrpc.ID, code int64, msg string) {
	data, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: code, Message: msg}})
	if !id.IsValid() {
		data, err = json.Marshal(struct {
			JSONRPC string         `json:"jsonrpc"`
			ID      any            `json:"id"`
			Error   *jsonrpc.Error `json:"error"`
		}{"2.0", nil, &jsonrpc.Error{Code: code, Message: msg}})
	}
	if err != nil {
		http.Error(w, msg, status)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(data)
}

package gateway

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"

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
// request passes the checks first — Origin (a browser page of a foreign origin gets 403),
// bearer token when Options.Token is set (401), body size (413) — and a POST without a
// session opens one only when it carries initialize. With Options.Stateless it serves every
// POST on its own instead (stateless.go).
func (g *Gateway) Handler() http.Handler {
	if g.opts.Stateless {
		return g.statelessHandler()
	}
	// No SessionTimeout: the idle timeout is the gateway's own (idle.go), since calls passed
	// through never reach this handler.
	opts := &mcp.StreamableHTTPOptions{
		Logger:              g.opts.Logger,
		MaxRequestBodyBytes: g.opts.MaxBodyBytes,
		// checkRequest has applied hostAllowed, which also passes Auth.Resource's host.
		DisableLocalhostProtection: g.opts.Auth != nil && g.opts.Auth.Resource != "",
	}
	sdk := mcp.NewStreamableHTTPHandler(g.serverFor, opts)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w = guardWrites(w) // a client that stops reading cannot block its session's end
		r, ok := g.checkRequest(w, r)
		if !ok {
			return
		}
		if !g.sameUser(w, r) {
			return
		}
		if r.Method != http.MethodPost {
			if r.Method == http.MethodDelete {
				// The session ends now for its calls passed through, which the go-sdk's
				// closing of the connection neither waits for nor sees (passthrough.go).
				if s := g.lookup(r.Header.Get(sessionHeader)); s != nil {
					s.connGone()
				}
			}
			sdk.ServeHTTP(w, r)
			return
		}
		// The body is read here, capped, so that an oversized one gets a JSON-RPC error
		// whatever the request, and an initialize can be told from anything else.
		body, ok := g.readBody(w, r)
		if !ok {
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		env := decodeEnvelope(body) // once: the checks and the pass-through path share it
		if sid := r.Header.Get(sessionHeader); sid != "" {
			// The go-sdk answers malformed JSON and unknown methods with plain text; a
			// JSON-RPC client needs a JSON-RPC error. A session it does not know is
			// left to the go-sdk (404).
			if s := g.lookup(sid); s != nil {
				s.idle.begin()
				defer s.idle.end()
				if s.passThrough(w, r, env) {
					return
				}
				if id, code, msg := checkMessage(env); code != 0 {
					status := http.StatusOK // a well-formed request with an error answer
					if code == jsonrpc.CodeParseError {
						status = http.StatusBadRequest
					}
					writeRPCError(w, status, id, code, msg)
					return
				}
				pw := &plainErrors{ResponseWriter: w}
				sdk.ServeHTTP(pw, r)
				pw.finish(body)
				return
			}
			sdk.ServeHTTP(w, r)
			return
		}
		g.serveNew(w, r, env, sdk)
	})
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
		case errors.Is(err, ErrTooManySessions), errors.Is(err, ErrNotReady):
			// A JSON-RPC error answer, not 503: clients treat 503 as transient and retry
			// without showing why; this says what the cap is.
			status, code = http.StatusOK, codeServerError
		}
		g.log.Warn("session refused", "err", err)
		writeRPCError(w, status, id, code, err.Error())
		return
	}
	sdk.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), pendingKey{}, s)))
	if !s.bound() {
		s.end() // initialize failed: the go-sdk dropped the session
		return
	}
	s.idle.arm(g.opts.IdleTimeout, s.close)
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

// readBody reads r's body, at most Options.MaxBodyBytes of it; a body over the cap is
// answered with a JSON-RPC error (413), one that cannot be read with 400, and ok is false.
func (g *Gateway) readBody(w http.ResponseWriter, r *http.Request) (body []byte, ok bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, g.opts.MaxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeRPCError(w, http.StatusRequestEntityTooLarge, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest,
				fmt.Sprintf("request body exceeds %d bytes", tooBig.Limit))
			return nil, false
		}
		http.Error(w, "Bad Request: "+err.Error(), http.StatusBadRequest)
		return nil, false
	}
	return body, true
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

// checkRequest applies to every request of the gateway's own routes (/mcp, the agents', stateless
// mode's, the status page, /metrics) the same checks, answering 403, 401 or 503 and reporting
// false when one fails: the Host (hostAllowed: the go-sdk checks it too, but calls passed
// through never reach the go-sdk), the Origin, then the static bearer token (Options.Token)
// or, with Options.Auth, an OAuth access token. A request with the static token passes
// without an identity; one with an access token returns carrying it (TokenInfo).
func (g *Gateway) checkRequest(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	if !g.hostAllowed(r) {
		http.Error(w, fmt.Sprintf("Forbidden: invalid Host header %q", r.Host), http.StatusForbidden)
		return nil, false
	}
	if o := r.Header.Get("Origin"); !g.originAllowed(o) {
		http.Error(w, fmt.Sprintf("Forbidden: origin %q is not allowed", o), http.StatusForbidden)
		return nil, false
	}
	if g.opts.Token != "" && g.authorized(r) {
		return r, true
	}
	if g.opts.Auth != nil {
		return g.checkToken(w, r)
	}
	if g.opts.Token != "" {
		w.Header().Set("WWW-Authenticate", `Bearer realm="agentpool"`)
		http.Error(w, "Unauthorized: a valid bearer token is required", http.StatusUnauthorized)
		return nil, false
	}
	return r, true
}

// checkOperator is checkRequest for the operators' routes (the status page, /metrics): with
// Auth, they show every user's sessions and the servers' errors, which are no user's to
// read, so only the static token passes (none configured: 403 for everyone, saying why).
func (g *Gateway) checkOperator(w http.ResponseWriter, r *http.Request) bool {
	if g.opts.Auth == nil {
		_, ok := g.checkRequest(w, r)
		return ok
	}
	if !g.hostAllowed(r) {
		http.Error(w, fmt.Sprintf("Forbidden: invalid Host header %q", r.Host), http.StatusForbidden)
		return false
	}
	if o := r.Header.Get("Origin"); !g.originAllowed(o) {
		http.Error(w, fmt.Sprintf("Forbidden: origin %q is not allowed", o), http.StatusForbidden)
		return false
	}
	if g.opts.Token == "" {
		http.Error(w, "Forbidden: with OAuth (server.auth) this page is the operators': set server.token and send it", http.StatusForbidden)
		return false
	}
	if !g.authorized(r) {
		http.Error(w, "Forbidden: this page needs the operators' token (server.token), not a user's", http.StatusForbidden)
		return false
	}
	return true
}

// sameUser answers 403 and reports false when r names a live session that another user
// opened (Auth): a session ID is no credential, and a session's servers are its user's.
func (g *Gateway) sameUser(w http.ResponseWriter, r *http.Request) bool {
	sid := r.Header.Get(sessionHeader)
	if sid == "" {
		return true
	}
	if s := g.lookup(sid); s != nil && s.user != userOf(r) {
		g.log.Warn("session refused to another user", "session", sid, "user", userOf(r))
		http.Error(w, "Forbidden: the session belongs to another user", http.StatusForbidden)
		return false
	}
	return true
}

// hostAllowed is the go-sdk's check of /mcp against DNS rebinding, for the handlers outside
// it: a request that reached a loopback listener must name a loopback host. A browser sends no
// Origin with a same-origin GET, so a page whose name was rebound to 127.0.0.1 is caught by
// its Host (its own name), not by its Origin. With Auth.Resource, its host passes too: a TLS
// reverse proxy on the same machine that keeps the client's Host header (Caddy's and
// Traefik's default) sends it, and a rebound page names its own domain, never that one.
func (g *Gateway) hostAllowed(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || local == nil || !isLoopback(local.String()) || isLoopback(r.Host) {
		return true
	}
	return g.opts.Auth != nil && g.opts.Auth.names(r.Host)
}

// isLoopback reports whether addr (host, or host:port) is localhost or a loopback address.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = strings.Trim(addr, "[]") // no port
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// originAllowed applies the MCP transport's rule against DNS rebinding: a request from a
// browser page carries Origin, and only loopback origins (any scheme and port) and those
// configured in Options.AllowedOrigins may reach the server. No Origin (a non-browser
// client) is fine.
func (g *Gateway) originAllowed(origin string) bool {
	if origin == "" {
		return true
	}
	for _, o := range g.opts.AllowedOrigins {
		if strings.EqualFold(strings.TrimSuffix(o, "/"), origin) {
			return true
		}
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false // "null" (a sandboxed or file: page) included
	}
	return isLoopback(u.Hostname())
}

// authorized checks the static bearer token (Options.Token), in constant time: both sides
// are hashed first, so neither the token's bytes nor its length leak through timing.
func (g *Gateway) authorized(r *http.Request) bool {
	if g.opts.Token == "" {
		return true
	}
	tok, ok := bearerToken(r)
	if !ok {
		return false
	}
	got, want := sha256.Sum256([]byte(tok)), sha256.Sum256([]byte(g.opts.Token))
	return subtle.ConstantTimeCompare(got[:], want[:]) == 1
}

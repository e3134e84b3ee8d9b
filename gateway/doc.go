// Package gateway serves the view of a scope as MCP servers (DESIGN.md "The server"):
// `agentpool serve` is this package over streamable HTTP or stdio. Each client session is a
// scope of its own — the base scope (the pool, or an agent) with SessionID set to the session's
// id — and gets its own mcp.Server, filled from view.Compile for that scope and kept current
// from the registry's change stream.
//
//	g, err := gateway.New(gateway.Options{Registry: reg, OpenSession: h.OpenSession, CloseSession: h.CloseSession})
//	if err != nil {
//		return err
//	}
//	defer g.Close(ctx)
//	srv := &http.Server{Addr: "127.0.0.1:7433", Handler: gateway.Mux(g, nil)}
//	// or, for one client on stdin/stdout: g.Serve(ctx, &mcp.StdioTransport{})
//
// It imports view, ext, frontmatter, the go-sdk and prometheus only: what it needs from the
// host (opening and closing a session's own servers, upstream state for metrics and the status
// page) is handed to it as functions. A Gateway, Routes and Metrics are safe for concurrent use.
//
// # What a session serves
//
//   - Tools, resources, resource templates, prompts (the view's commands) and completions of
//     the view; the template skill://{+path} when the view has skills; instructions are the
//     view's static part when the session opens. SEP-2640 skills/list and skills/get are
//     answered from the view's skills.
//   - On a change, only what differs is updated, and a client gets one list_changed per change
//     and kind touched.
//   - Forwarded both ways: progress, cancellation, logging (logging/setLevel goes upstream),
//     resource subscriptions, roots/list_changed (to the session's own servers), and an
//     upstream's sampling, elicitation and roots requests (to the client of the call in
//     flight; refused with a JSON-RPC error when that client is ambiguous).
//   - The protocol version is 2025-11-25 at most.
//
// # Sessions
//
// A session opens at initialize (a POST without Mcp-Session-Id that is not initialize gets a
// JSON-RPC error): Options.OpenSession runs, then the session's own servers must be ready
// within Options.OpenTimeout (default 30 s) or the session is refused with ErrNotReady and
// their errors (for example, the connection pool at pool.max_total_clients). Beyond
// Options.MaxSessions (default 4096, per Gateway) initialize is refused with
// ErrTooManySessions. Both refusals are JSON-RPC errors with HTTP 200. A session ends on
// DELETE, when its transport closes, after Options.IdleTimeout (default 30 m) without a POST,
// and at Close; ending it calls Options.CloseSession and closes the registry's scope of the
// session.
//
// # HTTP
//
// Checks, in order: Host (a loopback listener refuses a non-loopback Host), Origin (absent,
// loopback or Options.AllowedOrigins; anything else is 403), the bearer token (Options.Token,
// or an access token Options.Auth accepts; 401), the body size (Options.MaxBodyBytes, default
// 4 MiB; 413). Malformed or refused JSON-RPC gets a JSON-RPC error, never plain text. With
// Options.Auth the gateway is an OAuth 2.1 protected resource (RFC 9728 metadata per path, 401
// with a challenge, 403 insufficient_scope, 503 when the token cannot be checked now), and a
// session serves only the user whose token opened it.
//
// Mux routes /mcp to the pool's Gateway and /mcp/agents/<name> to each agent's. WithStatus adds
// the status page (/), /healthz and /readyz; Gateway.MetricsHandler serves /metrics (the
// README's metric names are stable). The status page and /metrics pass the same Host, Origin and
// token checks as /mcp; with Auth they take the static token only. /healthz and /readyz never
// ask for a token.
//
// # Stateless mode
//
// Options.Stateless serves every POST from one server of the base scope, with no
// Mcp-Session-Id, so any replica may answer any request. What needs a session does not work:
// server-to-client requests, list_changed, resources/subscribe and logging/setLevel (refused,
// -32000), upstream log messages, the GET stream and DELETE (405), session-scoped and skills'
// servers, and notifications/cancelled (a client cancels by dropping its request). Progress
// still reaches the client on the call's stream.
//
// # Errors
//
// An upstream's JSON-RPC error passes through with its code, message and data; an unknown or
// refused name or URI is -32602 (resources/read: -32002); anything else is an internal error
// carrying the message. An item the go-sdk refuses (a tool whose input schema is not an object)
// is logged and left out.
//
// Rationale, and the reasons behind each limit: docs/design/gateway.md.
package gateway

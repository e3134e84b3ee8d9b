// Package gateway serves the view of a scope as MCP servers (DESIGN.md "The server"):
// `agentpool serve` is this package over streamable HTTP or stdio. Each client session is a
// scope of its own — the base scope (the pool, or an agent) with SessionID set to the session's
// id — and gets its own mcp.Server, filled from view.Compile for that scope and kept current
// from the registry's change stream.
//
//	g, err := gateway.New(gateway.Options{Registry: reg, OpenSession: h.OpenSessionFunc(""), CloseSession: h.CloseSession})
//	if err != nil {
//		return err
//	}
//	defer g.Close(ctx)
//	srv := &http.Server{Addr: "127.0.0.1:7433", Handler: gateway.Mux(g, nil)}
//	// serve's own: srv.Serve(ln) with ln, stop := routes.Listen(ln, idle, header) moves the
//	// connections of passed-through calls off net/http (lane.go); stop it beside srv.Shutdown
//	// or, for one client on stdin/stdout: g.Serve(ctx, &mcp.StdioTransport{}) (or an mcp.IOTransport)
//
// It imports view, ext, exposure, frontmatter, the go-sdk and prometheus only: what it needs from the
// host (opening and closing a session's own servers, upstream state for metrics) is handed to
// it as functions; the status page, which reads the host itself, is package status. A Gateway, Routes and Metrics are safe for concurrent use.
//
// # Sessions
//
// A session serves the view's tools, resources, templates (skill://{+path} when it has skills),
// prompts (its commands), completions and SEP-2640 skills, and forwards progress,
// cancellation, logging, subscriptions, roots changes and upstream sampling, elicitation and
// roots requests; a change reaches the client as one list_changed per kind touched. The
// protocol version is 2025-11-25 at most, negotiated by initialize; server/discover (the
// 2026-07-28 handshake) is -32601 on every transport, so that a client falls back to initialize.
// resources/subscribe goes to the visible source that has the URI, a skill manager included
// (its watcher's events become resources/updated; a SKILL.md's also under skill://<skill>; a
// folder's, past 16 files, for each subscribed URI under it), and completion of skill://{+path}
// merges the local skill sources' completions, at most 100 values.
//
// Which of the view's tools a session lists is Options.Tools' (package exposure): all of them,
// or in search mode the always-on ones with search_tools, whose finds the session activates
// (tools/list_changed), and call_tool, which calls any tool of the view.
//
// A session opens at initialize: Options.OpenSession runs, and the session's own servers must be
// ready within Options.OpenTimeout (default 30 s) or it is refused with ErrNotReady and their
// errors (such as the pool at pool.max_total_clients), or at once when one was refused by a cap
// (ext.LimitKey); an error of OpenSession refuses it with
// a JSON-RPC error and HTTP 500, unless it is a cap reached (ext.ErrLimit, such as
// pool.max_session_processes). Past Options.MaxSessions (default 4096, per Gateway), or past
// Options.MaxSessionsPerUser of its user's (Auth; default 16, a session whose client sent
// DELETE no longer counting), it is refused with ErrTooManySessions. These refusals, and a cap
// reached, are JSON-RPC errors with HTTP 200, naming what was reached. A session ends on DELETE (one the go-sdk refuses too), when its transport closes, after
// Options.IdleTimeout (default 30 m) without a POST (Options.SessionGrace, default 2 m, once
// its client's GET stream has closed), and at Close; then Options.CloseSession runs and its registry scope is closed.
// Every call of a session, on either path, is cancelled upstream when the session's connection
// ends and when the HTTP request that carried it is dropped; a server's sampling or elicitation
// request whose client is gone fails at once. Forwarded notifications wait for a slow client in
// a queue of at most 4096 messages and 8 MiB per session; beyond it they are dropped, with one
// warning until the queue drains.
//
// # HTTP
//
// Checks, in order: Host (a loopback listener refuses a foreign Host), Origin (absent, loopback
// or Options.AllowedOrigins, else 403), the token (Options.Token, or one Options.Auth accepts;
// 401), the body (Options.MaxBodyBytes, default 4 MiB; 413). With Options.Auth the gateway is an
// OAuth 2.1 protected resource and a session serves only the user who opened it. Mux routes /mcp
// and /mcp/agents/<name>; package status adds /, /healthz and /readyz; MetricsHandler serves
// /metrics (the README's names are stable). The status page and /metrics pass the same checks
// (with Auth, the static token only); /healthz and /readyz never ask for a token. With Auth, a
// path under /mcp/agents/ that is no agent's is checked as an agent's path is, and neither its
// answers nor its resource metadata (served for any name) tell whether the agent exists.
//
// A JSON-RPC batch is read under the exchange's protocol version (the Mcp-Protocol-Version
// header, else the session's negotiated version or the version its initialize asks for): where
// that version has batches (2025-03-26 and before) its messages, at most 64, are served in
// order (those left when the client has gone, not at all) and answered with one JSON array;
// a batch under 2025-06-18 or later, of no known version, or of more than 64 messages is
// refused whole with -32600 (HTTP 400). Serve does the same on a stream transport, under the
// session's version or its initialize's, the session going on after a refusal. A session is
// served at most Options.MaxInflight requests at once (default 64; over stdio too, a batch
// counting one; in stateless mode, of one POST, a batch counting its requests; the
// POSTs served at once are bounded by the listener); one more is answered at once with a
// JSON-RPC error (-32000) naming server.max_inflight. A request stops counting when its
// answer is about to be written, so a client that sends its next request as soon as it has
// an answer is never refused for it.
//
// Options.Stateless serves every POST from one server with no Mcp-Session-Id, so any replica
// may answer; what needs a session (server-to-client requests, list_changed, subscriptions,
// setLevel, the GET stream, DELETE, session-scoped servers, cancellation) does not work.
//
// Errors: an upstream's JSON-RPC error passes through; an unknown or refused name or URI is
// -32602 (resources/read: -32002, with a "did you mean" hint when ext.NotFoundError has one);
// malformed JSON-RPC gets a JSON-RPC error, never plain text.
//
// Rationale: docs/design/gateway.md.
package gateway

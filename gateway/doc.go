// Package gateway serves the view of a scope as MCP servers (DESIGN.md "The server";
// RFC-0051's unified view exposed over MCP): `agentpool serve` is this package over
// streamable HTTP or stdio. Each MCP client session is an ext.Scope of its own (the base scope
// — the pool, or an agent — with SessionID set to the session's id) and gets its own
// mcp.Server, whose tools, prompts, resources, resource templates and instructions come from
// view.Compile for that scope (through a view.Cache) and are kept current from the registry's
// change stream.
//
// It imports view, ext, the go-sdk, the standard library, prometheus/client_golang (metrics)
// and frontmatter (a leaf that reads SKILL.md headers, for SEP-2640) only: what it needs from
// the host (opening and closing a session's own servers, an upstream server's state for the
// metrics) is handed to it as functions.
//
// Decisions taken where the RFC and DESIGN.md are silent:
//   - One mcp.Server per session, because an mcp.Server sends list_changed to all of its
//     sessions. The go-sdk's streamable handler asks for a server on every request; the
//     gateway answers from its sessions by Mcp-Session-Id, and for a POST without one opens
//     the session only when the body holds initialize (anything else gets a JSON-RPC error,
//     rather than a session that ends with the request). The session id is chosen by the
//     gateway (crypto/rand) and given to the go-sdk through ServerOptions.GetSessionID.
//   - A session is opened before its server answers initialize: OpenSession (the host
//     registers the session's own servers), the change stream, the first view, a server
//     filled with it. The server is filled before the client connects, so the first listings
//     are complete and no list_changed is sent for the initial set. Instructions are the
//     view's static part at that moment (MCP cannot change them later).
//   - Updates are differences: after a change event (events arriving together are taken as
//     one) the view is fetched from the cache and each kind is compared, item by item, by its
//     wire form with what the server holds; only what was removed, added or changed is
//     touched. Then one list_changed per kind touched is sent (templates are resources), so
//     a client gets one notification per change and kind, and none for a kind the change did
//     not touch. The go-sdk's own list_changed are dropped (a sending middleware): it sends
//     one 10 ms after a kind's last add or remove, so an update whose adds were further apart
//     (a loaded machine) went out as several (TestOneListChangedPerChangeWhenApplyIsSlow;
//     seen as a rare extra tools/list_changed in TestUpstreamChangesReachTheirSessions).
//   - Prompts are the view's commands under their listed names. A command that takes a
//     command line (a skill, a command file) without declared arguments gets one optional
//     argument, "arguments", which the view splits shell-style; an upstream prompt keeps its
//     own arguments.
//   - Resources are the view's (each skill's SKILL.md, every upstream resource) plus, when
//     the view has skills, the template skill://{+path}, through which any file of a skill is
//     read: reads go through view.ReadResource, the registry's routing and confinement.
//   - The hot path: an HTTP tools/call of a tool served by an upstream on a pooled stdio
//     connection is passed through without the go-sdk (passthrough.go), its result written as
//     the upstream wrote it, when the call carries nothing else (no progress token, a client
//     that set no log level and cannot be asked for sampling or elicitation); any other
//     request takes the go-sdk path. Measured by the benchmarks in bench_test.go.
//   - Completions: completion/complete goes to the capability that owns the prompt or the
//     resource template named, when it implements ext.Completer, with the prompt's qualified
//     name; anything else gets an empty completion.
//   - Errors: an upstream's JSON-RPC error passes through with its code, message and data; a
//     name or URI that does not exist (or is refused: traversal, unknown scheme) is invalid
//     params (-32602; resources/read: resource not found, -32002); anything else is an
//     internal error carrying the message. An item the go-sdk refuses (a tool whose input
//     schema is not an object, an invalid URI template) is logged and left out, never a panic.
//   - A session ends on DELETE, when its transport closes, after Options.IdleTimeout without
//     a request (the gateway's own timer, counting POSTs as the go-sdk's SessionTimeout did, so
//     a client that only keeps a GET stream open should ping), and at Close. Ending it stops its change stream, calls
//     CloseSession, closes the registry's scope of the session (whatever else was registered
//     there) and forgets its cached views.
//   - A degraded server recovers only when asked (mcpcap probes on access), and once left
//     out of a view nothing asks it: its tools are not listed, so no client calls them. So a
//     session whose view has Problems fetches it again every Options.RetryProblems (the
//     cache then compiles it, which asks the degraded servers); the recovery reaches every
//     session that sees the server as one tools/list_changed. Found by
//     TestUpstreamChangesReachTheirSessions.
//   - Pool exhaustion: a session's own (session-scoped) servers hold connection-pool slots
//     while it lives, and a client that vanishes without DELETE keeps them until the idle
//     timeout; past pool.max_clients a new session's server waits in the pool for a slot,
//     and its client waited, told nothing, for as long as its request lasted. A new session
//     now starts its own servers (lists their tools) within Options.OpenTimeout (30 s by
//     default: a slow first start, npx fetching a package, fits) and is refused past it
//     with ErrNotReady and the servers' errors, which name the exhausted pool and its
//     limit: a JSON-RPC error with HTTP 200, as for the session cap; nothing else is
//     disturbed, and a session opens again once a slot is free. The limit itself stays the
//     pool's (max_clients counts every live server, shared or a session's), rather than a
//     second cap here. TestPoolExhaustedRefusesSession.
//   - HTTP checks, in order: Origin (absent is fine; loopback origins on any port and
//     Options.AllowedOrigins pass; anything else, "null" included, is 403), the bearer token
//     when set (compared in constant time after hashing; 401), the body size (413 with a
//     JSON-RPC error), and at initialize the session cap (a JSON-RPC error naming the cap,
//     with HTTP 200: clients retry a 503 silently; no other session is touched). Malformed
//     JSON (-32700, HTTP 400) and requests of unknown methods (-32601) in a session get
//     JSON-RPC errors from the gateway, where the go-sdk would answer in plain text; so does
//     every other message the go-sdk refuses in plain text (a batch, a null or object id, a
//     jsonrpc other than "2.0", params of the wrong type: -32600 with its status and
//     message). An error answering a message whose id cannot be read has "id": null.
//     FuzzHandlerJSONRPC posts arbitrary bodies in a live session: JSON-RPC answers only,
//     never a panic, the session usable after each. The go-sdk's own Host check (a loopback listener
//     refuses a non-loopback Host header) stays on, except with Auth.Resource, whose host a
//     loopback listener also accepts (a TLS reverse proxy keeping the client's Host header):
//     hostAllowed, applied first, is then the check.
//   - OAuth (oauth.go, Options.Auth): the gateway is an OAuth 2.1 protected resource as the
//     MCP authorization specification describes. Each path is a resource of its own (its
//     URL, Auth.Resource + the path), with its RFC 9728 metadata at ResourceMetadataPath +
//     the path, the form clients try first; there is no root metadata, since a token for the
//     bare base URL would be one for no path. A request with no token gets 401 and a
//     challenge with resource_metadata and the path's scopes; an invalid one adds
//     error="invalid_token"; a valid one lacking a scope is 403 error="insufficient_scope"
//     (a client steps up); a token that cannot be checked now (the issuer unreachable) is
//     503 with Retry-After, not 401, so clients do not throw their tokens away. Checking the
//     token (signature, issuer, audience, expiry) is Auth.Verify's, injected (cmd wires
//     package bearer), which keeps this package free of JWT libraries. A session belongs to
//     the subject of the token that opened it: another user presenting its ID gets 403 for
//     every method, passed-through calls included (the session's servers are its user's).
//     The static token stays beside it for operators and scrapers: a request with it passes
//     with no identity. The status page and /metrics show every user's sessions and the
//     servers' errors: with Auth they take the static token only (checkOperator), and
//     without one they are 403 for everyone, saying so.
//   - Forwarding, both ways (forward.go, logs.go, subscribe.go, outbox.go):
//   - Progress: a call with the client's progressToken gets a sink (ext.ToolCall.Progress);
//     the capability sends a token of its own upstream and the gateway sends each
//     notification to the client under the client's token, on the call's stream. Progress
//     and log messages go through a per-session outbox (a goroutine only while something
//     waits, at most 4096 queued, then dropped and logged), because they are produced on an
//     upstream's reading goroutine, which must not wait for a client; the call's result is
//     sent only once everything queued before it was sent, so nothing is overtaken. A
//     write to a client's HTTP stream that stalls for 30 s fails and breaks the stream: a
//     client that stops reading cannot block its outbox, nor the end of its session (the
//     go-sdk's close waits for a write in progress).
//   - Cancellation: the client's notifications/cancelled cancels the handler's context, which
//     is the upstream call's: the go-sdk client sends notifications/cancelled upstream with
//     its own request id and the upstream session stays up.
//   - The server's requests to its client: every tools/call, prompts/get and resources/read
//     carries its client (ext.WithClient, a caller value: the session and the request's
//     context), which package mcpcap records with the call in flight; connpool routes a request to the one client with calls in flight
//     to that server, refuses it when calls of several clients are in flight (a JSON-RPC
//     error saying so), and for a session's own server falls back to the session (before any call too: the session's
//     servers start with the session's client in their context, and a request made before
//     the client sent notifications/initialized waits for it). The
//     gateway sends it on the call's stream while the call runs (as the server would have,
//     directly), on the session's stream after. A request for a capability the client did not
//     declare is answered -32000 with a message naming it (not -32601, whose message the
//     go-sdk replaces with a bare "method not found").
//     Since agentpool connects shared servers before any client is known, it declares
//     sampling (with tools), elicitation (form and URL) and roots to every server and leaves
//     the refusal to the client of each call. Elicitation schemas are the client's to check
//     (the go-sdk client's own check, stricter than the spec's clients, is bypassed).
//   - Logging: logging/setLevel is recorded by the go-sdk (ServerSession.Log then filters at
//     the session's level, and sends nothing before one is set) and forwarded to every
//     ext.LogSource the session sees (a shared server keeps the most verbose level any
//     session asked for). Every session observes the log sources it sees, so a shared
//     server's messages reach every session that sees it, each at its level; a message that
//     arrives while the session has a call in flight to that server goes on the call's stream,
//     ahead of the result.
//   - Subscriptions: resources/subscribe goes to the first visible capability that has the
//     resource and implements ext.ResourceSubscriber, once per session and URI (mcpcap counts
//     holders per upstream session, so a shared server is subscribed once); updates come back
//     as resources_changed events with the URI and the go-sdk sends resources/updated to the
//     sessions subscribed. A session's subscriptions are given back when it ends.
//   - Protocol version: the gateway agrees to 2025-11-25 at most (a newer version asked for
//     is answered with it; server/discover is refused, so a go-sdk client falls back to
//     initialize; a request asking for a newer one in its _meta, SEP-2575's per-request
//     form, is refused with -32022 on every transport, stdio included), as connpool asks upstream servers for it: from 2026-07-28 a server's
//     requests to its client are embedded in results (SEP-2322), which is not translated.
//   - Agents: one Gateway per agent (Options.Scope{AgentName}, its own view.Cache with the
//     agent's compile options: which registrations it sees, which tools it keeps), and Mux
//     routing /mcp to the pool's Gateway and /mcp/agents/<name> to each agent's. One Gateway
//     per agent rather than one routing by path keeps a session's scope fixed at its
//     creation and the Gateway unaware of agents; the cost is that the session cap and
//     idle timeout are per path. A name under /mcp/agents/ that is no agent is 404 with a
//     body naming the agents, after the pool Gateway's Origin and token checks.
//   - SEP-2640 (skills.go): every session declares io.modelcontextprotocol/skills (no
//     directoryRead) and answers skills/list (one page, resultType "complete") and skills/get
//     from its view's skills. frontmatter is the SKILL.md's, read through the view and parsed
//     as package skill parses it (name and description from the view when it does not parse).
//     resources lists a local skill's files: its folder walked without following symlinks,
//     each file read through the view (so confinement decides what is a file of the skill)
//     for its sha256 and size. Digests must describe what a read returns now, yet hashing
//     every file of every skill on every call made each client's listing a full re-read: a
//     file's digest is kept by URI and path with the file's stat at the read, and serves
//     while the file is the same one (device and inode) with the same size and modification
//     time — make's and rsync's quick check (digestCache, process-wide, bounded). The folder
//     is still walked and each file stat'ed on every call, so an added, removed or edited
//     file shows at once; SKILL.md, read for the frontmatter anyway, is hashed every time.
//     At most maxSkillListings (4) skills/list and skills/get answers are computed at once in
//     the process; the others wait their turn or their context.
//     A remote skill is "dynamic": mcpcap keeps no upstream's file list, and a gateway cannot
//     vouch for completeness; so is a skill beyond SEP-2640's limits (512 files, 16 MiB).
//     skills/get of anything but a served skill's SKILL.md URI is -32602.
//   - A client's notifications/roots/list_changed reaches the servers of its own session
//     (ext.RootsWatcher), which ask it again; a pool-scoped server shared by sessions is not
//     told (roots.go says why). TestRootsChangedReachTheSessionsServers.
//   - Metrics (metrics*.go; the names are the README's table, fixed: other tools rely on
//     them): one Metrics, on a prometheus.Registry of its own (never the global default, so
//     that several in one process do not collide), shared by every Gateway of a process
//     through Options.Metrics; Gateway.MetricsHandler serves it.
//   - Calls: both paths (callTool through the go-sdk, passThrough without it) count a call
//     once it was routed, by server = the capability's name and tool = the name that
//     capability lists it under (view.Route's; for an upstream with its default prefix that
//     is "<server>__<tool>"; the upstream's own name is not known here). A call of no tool
//     in the view is counted nowhere (its name is the client's, unbounded). An error is a
//     JSON-RPC or transport error, a cancelled call included, or a result with isError:
//     both count in agentpool_tool_call_errors_total, without a label telling them apart
//     (the debug log line does, as its outcome). The pass-through path tells isError by
//     looking for the member in the result's bytes (rawIsError) rather than decoding it. The
//     label children of a (server, tool) are resolved once and kept (a map under a
//     read-write lock: a sync.Map would box the key on every call), so a call costs two
//     clock reads, a map read and three atomic updates; a tool gone from every view keeps its
//     series until the process ends.
//   - Live numbers are read at scrape time, never kept on a hot path: sessions from each
//     registered Gateway (label agent, "" for the pool's), and the upstream servers from
//     every capability a Gateway's base scope or a live session's scope sees in the registry
//     and their children (ext.Composite: a skill's own servers are children of the session's
//     skill-servers capability), each capability once, through MetricsOptions.Upstream, which the CLI fills from
//     mcpcap.Cap.Status (gateway never imports mcpcap). Processes are distinct pids (a
//     pooled process shared by sessions counts once); reconnects are summed over a server's
//     live instances (a session-scoped server's count leaves with its session: Prometheus
//     sees a counter reset) and degraded is 1 when any instance is.
//   - Change events are counted by the Gateway whose base scope is the pool, from its own
//     registry subscription at that scope (the pool's capabilities, each event once, however
//     many sessions see it); serve --stdio --agent has no pool Gateway and counts none.
//     Config reloads are counted by whoever reloads (Metrics.ConfigReloaded).
//   - /metrics is behind the same Host, Origin and bearer-token checks as /mcp: metrics name
//     the upstream servers and tools, and Prometheus sends a token when configured to. Without
//     a token the listener's address (loopback by default) is the protection, as for /mcp. The
//     Host check (a loopback listener refuses a non-loopback Host, as the go-sdk's /mcp does)
//     matters most here and on the status page: a browser sends no Origin with a same-origin
//     GET, so a DNS-rebound page would pass the Origin check
//     (TestStatusAndMetricsRefuseForeignHost).
//   - Logs: one line per routed call at debug (msg "tool call": the session id's first 12
//     characters, enough to tell sessions apart, then server, tool, duration, outcome
//     ok|tool_error|error), built only when the logger is enabled for debug (no allocation
//     otherwise: TestCallDoneAllocatesNothing); never the arguments or the result, which
//     may hold secrets.
//   - Status page (status.go, status_page.go, status.html): WithStatus puts /, /healthz and
//     /readyz in front of the MCP routes. The page is server-rendered html/template (every
//     value escaped: skill names, server errors and client names are untrusted text), styles
//     inline, no script, and a Content-Security-Policy that forbids any. What only the host
//     knows (servers' states and errors, skill diagnostics, the last reload) is injected as
//     a func returning plain data (StatusReport); the rest is the gateway's own: the pool's
//     view (from the pool Gateway's cache, bounded to 10 s so a hung server cannot hang the
//     page) and each Gateway's sessions (SessionInfos: an 8-character id prefix, never the id,
//     which is the session's bearer). The page passes the pool Gateway's Host, Origin and
//     token checks; /healthz and /readyz never ask for the token (load balancers probe them).
//     Per-session calls are one atomic add on each call path (go-sdk and pass-through).
//   - Stateless mode (Options.Stateless, server.stateless; stateless.go), for tool-only
//     fleets behind a load balancer where any replica may answer any request: no
//     Mcp-Session-Id; every POST is served by the go-sdk's stateless handler over one
//     mcp.Server of the base scope, filled from the view cache once and kept current from the
//     change stream (a request compiles nothing; a tools/call passes through as in a
//     session). What stops working, because it needs a session: server-to-client requests
//     (sampling, elicitation, roots: an upstream that asks gets an error naming
//     server.stateless), list_changed notifications (not declared; the next listing shows
//     the change), resources/subscribe and logging/setLevel (refused, -32000, naming stateless
//     mode), upstream log messages (not forwarded), the GET stream and DELETE (405), and
//     session-scoped servers and skills' own servers (never started: OpenSession is not
//     called; config refuses server.stateless with a server of scope: session). Progress of
//     a call still reaches the client on the call's stream, through an outbox of the call's
//     own (the session's would be every client's: one that stopped reading held up the
//     others' results, TestStatelessStuckClientDelaysNoOther). notifications/cancelled cancels
//     nothing (ids are not unique across clients, and it may reach another replica: one
//     client's cancel ended another's call passed through, TestStatelessCancelReachesNoOtherClient);
//     a client cancels by dropping its request.
//   - The session cap is per Gateway.
package gateway

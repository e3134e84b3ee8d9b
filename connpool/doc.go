// Package connpool is the SessionConnectionPool of RFC-0051 (DESIGN.md "MCP
// servers", "Pool"): it spawns or connects MCP servers through the official
// go-sdk, shares one client per (partition, config fingerprint) among
// reference-counted leases, caps live clients, expires idle ones, and ends
// every stdio server's whole process group when done with it.
//
// Callers Get a *Conn, use Conn.Session for MCP calls (one ClientSession is
// safe for concurrent calls), watch Conn.Done for the server's death, and
// Release the lease. The pool never reconnects a dead client by itself:
// after Done, the next Get starts a new process (mcpcap owns reconnect with
// backoff and call-retry policy).
//
// Decisions taken where the RFC and DESIGN.md are silent:
//
//   - Partition "" means GlobalPartition. Name and StartTimeout are not part
//     of the fingerprint; an empty Type means stdio when Command is set and
//     streamable HTTP when only URL is set. Setting both is an error.
//   - A start runs on a pool goroutine bounded by StartTimeout and by Close,
//     not by the Get that triggered it, so one caller giving up does not fail
//     the others waiting on the same start. A failed start is removed at once
//     (never cached); every Get waiting on it gets the same error, wrapping
//     ErrStart, with the process exit status and stderr tail.
//   - Failed starts are classified for the caller's retry policy (the pool
//     itself never retries): a start that ran out of StartTimeout also wraps
//     ErrStartTimeout; one that cannot succeed by trying again at once also
//     wraps ErrPermanent: spawn failed with ENOENT or EACCES (the command, the
//     interpreter of its #! line, or its cwd), or an HTTP server answered the
//     first request of the start with 401, 403 or 404 (only the first: a 404
//     later in a session means the session expired). Neither is cached.
//   - Two caps (DESIGN.md's pool.max_clients, refined): MaxClients (default
//     20) bounds each partition — the global partition's shared servers, and
//     each session's own — and MaxTotalClients (default 4096, the gateway's
//     default server.max_sessions) bounds all of them together. One cap for
//     everything made the 21st session of a gateway with a session-scoped
//     server wait for a release that never came and fail: a session's
//     servers are per session by design, so their number grows with the
//     sessions the gateway accepts (server.max_sessions), while what one
//     session or the shared config may start stays small. The total is the
//     bound on processes however many sessions there are. Both count clients
//     that are starting or live, a closed partition's clients still leased
//     included. A client that is being torn down (evicted, expired, crashed)
//     no longer counts, so the number of processes may briefly exceed a cap;
//     Stats.Processes shows it. At a cap, Get evicts the client idle for
//     longest that makes room: one of its own partition for MaxClients (a
//     session never ends another's idle server to stay under its own cap),
//     any for MaxTotalClients.
//   - Pool.ClosePartition ends a partition now, not after IdleTimeout: a
//     session's end calls it, so its processes and their state end with it.
//     Idle clients are closed and waited for; a leased one leaves the pool at
//     once (the next Get starts a new one) and is closed at its last Release,
//     or by Close; until then it still counts against the caps. Partition names are not remembered: a host gives each
//     session a partition of its own, never reused.
//   - Pool.Retire does the same for one key (partition, fingerprint): a config reload that
//     removes or changes a server ends its old process now, not after IdleTimeout. It takes
//     the config, not a lease: the caller has already released its own, and a lease cannot
//     say whether other leases of the key (another declaration with the same command) are
//     meant to go too — they keep the client until their last Release. It does not wait for
//     the process, so a reload is not held up by a server slow to die (KillGrace).
//   - A stdio server does not inherit this process's environment (an API key
//     in the user's shell is not every server's): it gets HOME, LANG, LC_ALL,
//     LC_CTYPE, LOGNAME, PATH, SHELL, TERM, TMPDIR, TZ and USER when set — the
//     MCP reference clients' set (TypeScript and Python SDKs: HOME, LOGNAME,
//     PATH, SHELL, TERM, USER) plus the locale, TMPDIR and TZ, which hold no
//     credential — then what EnvPassthrough names, then Env, which wins. Like
//     the reference clients, an inherited value starting with "()" (a shell
//     function) is left out.
//   - stdio servers get their own process group (Setpgid) and raw pipes
//     handed to the pool's own stdio transport (lean.go: newline-delimited
//     messages decoded without the go-sdk's per-message 32 KiB decoder, and
//     calls passed through as raw JSON by Conn.CallRaw); exec gets *os.File values so no copying
//     goroutine ties cmd.Wait to a grandchild holding a pipe. When the direct
//     child exits, the rest of its group is SIGKILLed at once and our pipe
//     ends are closed, so calls in flight fail immediately (a grandchild
//     behind `sh -c` can no longer keep the session half alive).
//   - No orphans when this process is killed (even by SIGKILL): on Linux every
//     stdio server gets Pdeathsig SIGKILL and is started from one goroutine
//     locked to its OS thread for the pool's life (Pdeathsig fires when the
//     forking thread exits, not the process); the thread ends after Close has
//     reaped every server. Pdeathsig reaches the direct child only, and dash
//     (Debian's /bin/sh) does not exec the last command of `sh -c`, so each
//     group also gets a guard: `/bin/sh -c "read x; kill -KILL 0"` in the
//     server's group, reading a pipe whose write end only this process holds.
//     When this process dies the pipe closes and the guard kills the group,
//     grandchildren included; the pool's own group kills end the guard with
//     the rest. The cost is one small shell per stdio server. A process that
//     left the group (setsid, a daemonizing npx) escapes both.
//   - Closing a client: close its stdin, SIGTERM the group, wait KillGrace for
//     the direct child, SIGKILL the group, reap. With Options.Subreaper,
//     adopted grandchildren are reaped with wait4(-pgid) after the leader is
//     reaped (never before, which would steal its status from cmd.Wait).
//     Processes that leave the group (setsid) are out of the pool's reach.
//   - HTTP clients get their own http.Transport (closed with the client, so
//     no idle connection outlives it) that adds ServerConfig.Headers to the
//     requests to the URL's scheme, host and port only: not to a redirect
//     elsewhere (net/http would send them there, dropping only Authorization
//     and cookies) nor to an SSE message endpoint elsewhere, and are
//     connected with a context that lives as long as the client (the SDK's
//     SSE client ties its stream to the Connect context). Closing an HTTP
//     client closes the session gracefully (DELETE for streamable HTTP),
//     then cuts its streams after KillGrace; calls still in flight are not
//     interrupted, so Pool.Close relies on its context as the final bound.
//   - Secrets are never printed. A URL's user info, query values and fragment
//     are secrets (RedactURL: https://REDACTED@host/mcp?token=REDACTED); so
//     are header and env values and arguments. The SDK is given the URL
//     already redacted, and the HTTP client puts the real user info and query
//     back on each request to the configured endpoint (never to another
//     origin), and hands back responses carrying the redacted request: no
//     error or log line of the SDK, net/http or this package can show what it
//     never had. A secret written into the URL's path (…/key/abc123/mcp) is
//     not recognised as one: put it in a query, a header or the user info. Messages
//     name a server by its Name, else its command or redacted URL, and
//     ServerConfig prints (%v, %#v, slog) without args, env or headers.
//   - OAuth (ServerConfig.Auth, a decl.Auth): the pool's own http.RoundTripper puts the
//     token on every request to the server's origin and, on a 401 (or a 403 whose challenge
//     says insufficient_scope: step-up), runs the handler's Authorize once and sends the
//     request again, as the go-sdk's streamable transport does with its OAuthHandler. It is
//     done there rather than through StreamableClientTransport.OAuthHandler so that every
//     request is authorized: the SDK's, SSE's, and the calls passed through (rawHTTP).
//     The handler is an auth.OAuthHandler: the go-sdk's AuthorizationCodeHandler for the
//     authorization code grant (PKCE; a client ID metadata document, a pre-registered
//     client or dynamic registration, in that order; RFC 9728 then RFC 8414/OIDC
//     discovery with the issuer checked; the RFC 8707 resource; RFC 9207 iss; the step-up
//     union of scopes), and our own client credentials handler, since the SDK's
//     (extauth) authenticates with a secret only and sends no resource: it does
//     client_secret_basic, client_secret_post and private_key_jwt (RFC 7523, ES256, ES384,
//     RS256 or EdDSA by the key), discovers as above, sends resource, and unions scopes on
//     step-up. The metadata, registration and token requests use the client's connections
//     without the server's Headers. Tokens are renewed before they expire (three quarters
//     of their lifetime, or 30 s ahead of expiry for those over two minutes), not at
//     oauth2's fixed 10 s, which would fetch a 2 s token on every request. An authorization
//     that fails (credentials refused, or a user's authorization wanted where there is no
//     user: Options.AuthorizeUser nil, ErrNeedsLogin, "needs login: run agentpool login
//     SERVER") fails the start with ErrPermanent and that reason, so mcpcap degrades the
//     server rather than retrying it in a loop; mid-session it ends the client like a
//     request that got no response. No token, secret or assertion is ever logged: errors
//     of the token endpoint show its error code and description only. A user's tokens
//     (authorization code grant) are kept in Options.Tokens: FileTokenStore writes one 0600
//     file per server (its name and a hash of its URL) in a 0700 folder, unencrypted, its
//     protection the user's account as for ~/.ssh (agentpool: $XDG_CONFIG_HOME/agentpool/
//     tokens, per user), with the token endpoint and the client they were issued to (a
//     dynamically registered client exists nowhere else), so that a later client refreshes
//     them without a login; Load refuses a file others may read. Client credentials tokens
//     are not stored: the credentials get a new one at any time. golang.org/x/oauth2
//     is imported for its Token and TokenSource types, which are in auth.OAuthHandler's
//     signature (it is the go-sdk's own dependency).
//   - An HTTP request that gets no HTTP response (connection refused, reset,
//     dropped before the answer) and was not cancelled by its caller ends
//     the client: it is marked ended before the error reaches the caller, so
//     the next Get starts a new session, and Done closes once the session is
//     closed; Err names the failed request. Without this the SDK keeps a
//     session to a dead server "live" while its standalone SSE stream retries
//     for tens of seconds. A new session is the only way back anyway: a
//     restarted server no longer knows the old session id.
//   - A lease holds the client, not the process: when the process dies, the
//     lease's Done closes and Err explains why; the dead client leaves the
//     pool at once, so the next Get starts a new process while old leases
//     are still being released.
//   - Notifications from the server (list_changed, resource updated, logging,
//     progress) are fanned out synchronously to every lease's observers;
//     observers must not block. Progress notifications go to every lease:
//     observers filter on their own progress tokens.
//   - Progress is fanned out from the transport's read path (a wrapped stdio
//     connection; for HTTP, a tap on event-stream bodies that frames SSE as
//     the SDK does), not from the SDK's notification handler, which runs on
//     a goroutine of its own while a response completes its call at once:
//     every progress notification the server sent ahead of a result reaches
//     the observers before the call that awaits the result returns.
//   - Log messages (notifications/message) are tapped from the transport like
//     progress, for the same reason: a message logged during a call reaches the
//     observers before the call returns. An HTTP event of more than 64 KiB is
//     buffered only when its first 64 KiB name a tapped method (a large result is
//     passed over, not copied), up to the SDK's event limit of 16 MiB.
//   - The protocol version asked for is 2025-11-25 (Options.ProtocolVersion): the
//     last in which a server sends sampling, elicitation and roots requests to its
//     client during a call; from 2026-07-28 they are embedded in results, which a
//     gateway's clients could not be given.
//   - Every client declares roots, sampling (with tools) and elicitation (form and
//     URL) (ClientCapabilities): a shared server starts before any caller is known.
//     The server's requests are forwarded, as JSON, to a Peer: the one client with
//     calls in flight on the connection (Conn.Track). Calls of several clients in
//     flight make a request ambiguous, and no call in flight (or only calls made
//     without a client) leaves it without one: either is refused with JSON-RPC error
//     -32000 (CodeUnroutable) naming the server, the method and why, wrapping
//     ErrAmbiguousPeer or ErrNoPeer, never guessed. A connection of a session's
//     partition has one client, so with no call in flight its requests go to the
//     last client that called it, or, before any call, to the Peer carried by the Get
//     that leased it (WithPeer): such a server may ask for roots as soon as it is
//     initialized. The go-sdk's own handlers are bypassed: they would
//     answer roots/list with the client's own (empty) list and check elicitation
//     schemas more strictly than the client they are for may.
//
// Platform: Linux (process groups, prctl, Pdeathsig); other Unix systems work
// without Options.Subreaper and Pdeathsig (the group guard still ends a killed
// agentpool's servers).
package connpool

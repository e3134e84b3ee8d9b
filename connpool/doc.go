// Package connpool is the SessionConnectionPool of RFC-0051 (DESIGN.md "MCP servers", "Pool"):
// it starts or connects MCP servers through the go-sdk, shares one client per (partition,
// config fingerprint) among reference-counted leases, caps live clients, expires idle ones, and
// ends every stdio server's whole process group when done with it.
//
//	pool := connpool.New(nil) // defaults
//	defer pool.Close(ctx)
//	conn, err := pool.Get(ctx, connpool.ServerConfig{Name: "fs", Command: "mcp-fs"}, connpool.GlobalPartition)
//	if err != nil {
//		return err // errors.Is(err, connpool.ErrStart), ErrPoolExhausted, …
//	}
//	defer pool.Release(conn)
//	res, err := conn.Session().CallTool(ctx, &mcp.CallToolParams{Name: "read"})
//
// A Conn is a lease on a client, not on a process. Use Conn.Session for MCP calls (one
// ClientSession is safe for concurrent calls), watch Conn.Done for the server's end (Conn.Err
// says why), and Release the lease. The pool never reconnects: after Done, the dead client has
// left the pool and the next Get starts a new one (package mcpcap owns reconnect, backoff and
// call retry). All methods of Pool and Conn are safe for concurrent use.
//
// # Sharing and partitions
//
// Partition "" is GlobalPartition, where pool- and agent-scoped servers live; a session's own
// and its skills' servers use a partition of the session's, so a stateful server is never
// shared between sessions. The fingerprint covers the whole ServerConfig except Name and
// StartTimeout. An empty Type is stdio when Command is set and streamable HTTP when only URL
// is; both set is an error (ErrInvalidConfig).
//
// # Limits
//
//   - Options.MaxClients (default 20) caps the starting and live clients of each partition:
//     the global partition's shared servers, and each session's own. Options.MaxTotalClients
//     (default 4096, the gateway's default server.max_sessions) caps all partitions together.
//     These are the config's pool.max_clients and pool.max_total_clients.
//   - At a cap, Get evicts the client idle longest that makes room (one of its own partition
//     for MaxClients, any for MaxTotalClients), else waits for a release; when its context
//     ends first it fails with ErrPoolExhausted, naming the cap. A client being torn down no
//     longer counts, so the processes may briefly exceed a cap (Stats.Processes shows them).
//   - Options.IdleTimeout (default 5 m) closes a client that has had no lease that long.
//   - ServerConfig.StartTimeout (default 30 s) bounds spawn, connect and initialize.
//
// # Starting, ending and errors
//
//   - A start runs on a pool goroutine bounded by StartTimeout and Close, not by the Get that
//     triggered it: every Get waiting on one start gets the same result. A failed start is
//     never cached. Its error wraps ErrStart, with the exit status and stderr tail; also
//     ErrStartTimeout when it ran out of time, and ErrPermanent when trying again at once
//     cannot help (ENOENT or EACCES for the command, its #! interpreter or its cwd; HTTP 401,
//     403 or 404 to the first request).
//   - ClosePartition ends a partition now (a session's end): idle clients are closed and waited
//     for; a leased one leaves the pool at once and closes at its last Release. Retire does the
//     same for one (partition, config), for a reload that changed or removed a server; it does
//     not wait for the process.
//   - Close ends every client: a stdio server's stdin is closed, its group gets SIGTERM, then
//     SIGKILL after Options.KillGrace (default 2 s), and is reaped; with Options.Subreaper,
//     adopted grandchildren are reaped too. An HTTP client's session is closed (DELETE for
//     streamable HTTP) and its streams cut after KillGrace.
//   - An HTTP request that gets no HTTP response, and a message from a stdio server that cannot
//     be read, end the client before the caller hears of the failure: the next Get starts a new
//     session.
//   - No orphans: on Linux every stdio server gets Pdeathsig and a guard process in its group,
//     so its whole group dies with this process, even on SIGKILL. A process that leaves the
//     group (setsid) escapes.
//
// # Environment and secrets
//
// A stdio server does not inherit this process's environment: it gets HOME, LANG, LC_ALL,
// LC_CTYPE, LOGNAME, PATH, SHELL, TERM, TMPDIR, TZ and USER when set (never a value starting
// with "()"), then what EnvPassthrough names, then Env, which wins. Secrets are never printed:
// a URL's user info, query values and fragment are redacted (RedactURL), header and env values
// and arguments are left out of String, GoString and LogValue, and the go-sdk is only ever given
// the redacted URL. ServerConfig.Headers go to the server's own origin only.
//
// # OAuth
//
// ServerConfig.Auth makes an HTTP client an OAuth client: the authorization code grant (the
// go-sdk's handler; Options.AuthorizeUser runs the user's part, Options.Tokens keeps the
// tokens, FileTokenStore as 0600 files) or client credentials (client_secret_basic,
// client_secret_post, private_key_jwt). Tokens are renewed before they expire. A failed
// authorization fails the start with ErrPermanent (ErrNeedsLogin where a user is wanted and
// none can be asked). No token, secret or assertion is logged.
//
// # Notifications and server requests
//
// Conn.Observe delivers list_changed, resources/updated, logging and progress notifications
// synchronously, in transport order, before the result of the call they precede; observers
// must not block. Every client declares roots, sampling and elicitation (ClientCapabilities).
// A request from the server goes to the Peer with calls in flight on the connection
// (Conn.Track; before any call, the Peer given by WithPeer); several such peers, or none, make
// the request fail with CodeUnroutable wrapping ErrAmbiguousPeer or ErrNoPeer. The protocol
// version asked for is DefaultProtocolVersion (2025-11-25).
//
// Platform: Linux; other Unix systems work without Subreaper and Pdeathsig. Rationale and
// measurements: docs/design/connpool.md.
package connpool

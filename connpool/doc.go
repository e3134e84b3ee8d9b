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
// A Conn is a lease on a client: use Conn.Session for MCP calls, watch Conn.Done for the
// server's end (Conn.Err says why), and Release it. The pool never reconnects: after Done the
// next Get starts a new client (mcpcap owns reconnect and retry). Pool and Conn are safe for
// concurrent use.
//
// # Sharing and limits
//
//   - Partition "" is GlobalPartition (pool- and agent-scoped servers); a session's own servers
//     use a partition of the session's, so a stateful server is never shared between sessions.
//     The fingerprint is the whole ServerConfig but Name and StartupTimeout.
//   - Options.MaxClients (default 20, the config's pool.max_clients) caps the starting and live
//     clients of each partition; Options.MaxTotalClients (default 4096,
//     pool.max_total_clients) caps all partitions together; Pool.Reserve adds room to both for
//     the servers a config declares. At a cap Get evicts the client idle longest that makes
//     room, else fails at once with ErrPoolExhausted naming the cap's key; it waits only while
//     a client counted against the cap is still starting.
//   - Options.MaxSessionProcesses (default 256, pool.max_session_processes) caps the stdio
//     servers of all partitions but the global one; at it Get fails at once with
//     ErrPoolExhausted naming the key. ReserveSessionProcesses holds places for a session's
//     servers in one step with the count; only those servers start in them, again after a
//     crash, until ClosePartition or their Retire.
//   - Options.IdleTimeout (default 5 m) closes a client without a lease; ServerConfig.StartupTimeout
//     (default 30 s) bounds spawn, connect and initialize.
//
// # Starting and ending
//
//   - Every Get waiting on one start gets its result; a failed start (ErrStart, with
//     ErrStartTimeout or ErrPermanent where they apply) is never cached.
//   - ClosePartition ends a partition now (a session's end), Retire one (partition, config) (a
//     reload); a leased client leaves the pool at once and closes at its last Release. Close
//     ends everything: a stdio server's group gets SIGTERM, SIGKILL after Options.KillGrace
//     (default 2 s), and is reaped; an HTTP session is closed (DELETE).
//   - A request that gets no HTTP response, or an unreadable message from a stdio server, ends
//     the client before the caller hears of it.
//   - No orphans: on Linux a stdio server's whole process group dies with this process, even
//     on SIGKILL (Pdeathsig and a guard process). A process that leaves the group escapes.
//
// # Environment, secrets, OAuth
//
// A stdio server does not inherit this process's environment (see ServerConfig). Secrets are
// never printed: URLs are redacted (RedactURL), and String, GoString and LogValue leave out
// args, env and headers. ServerConfig.Auth makes an HTTP client an OAuth client; a failed
// authorization fails the start with ErrPermanent (ErrNeedsLogin when no user can be asked).
//
// # Notifications and server requests
//
// Conn.Observe delivers notifications synchronously, in transport order, before the result of
// the call they precede; observers must not block. A request from the server goes to the Peer
// with calls in flight on the connection (Conn.Track, or WithPeer before any call); several or
// none fail it with CodeUnroutable (ErrAmbiguousPeer, ErrNoPeer).
//
// # Sandboxed servers
//
// A stdio server whose declaration has a sandbox starts through package sandbox's entry point
// (the agentpool-sandbox launcher, or this program re-executed: it must call sandbox.Main
// first), which confines itself and then becomes the server: the same pid and process group,
// so Pdeathsig, the guard and the group kills apply to it unchanged. Conn.Sandbox says what was
// applied. The first pool of a process removes the private temporary folders that the
// sandboxed servers of an agentpool killed with SIGKILL left behind. A required sandbox the
// kernel cannot apply fails the start at once and for good (ErrPermanent wrapping
// sandbox.ErrUnavailable), in one line; no process is started.
//
// Platform: Linux; other Unix systems work without Subreaper and Pdeathsig. Rationale and
// measurements: docs/design/connpool.md.
package connpool

// Package status serves the operators' page of a running agentpool serve, and the probes a load
// balancer sends, in front of its MCP routes (Handler):
//
//   - / is a read-only HTML page (GET and HEAD; anything else 405) behind the pool Gateway's
//     operator checks (Host, Origin, the static server token; never a user's OAuth token): the
//     host's servers with their state, processes, tools, calls, next retry and sandbox (what
//     the kernel applies of it, or why it refuses to start the server); skill and plugin
//     diagnostics; the last reload; the tools, commands and collisions a client sees (the
//     newest session's view, bounded to 10 s); every Gateway's sessions by an 8-character id
//     prefix. Every value is escaped, control characters are shown as symbols, and no script
//     runs (a Content-Security-Policy forbids any).
//   - /healthz answers 200 while the process serves; /readyz answers 200 once Options.Ready
//     returns nil, else 503 with its reason. Neither asks for a token.
//
// Watch reports each server's transitions of health (degraded, recovered), the pool's and the
// agents' own, following the host's reloads: serve prints them.
//
// What only the host knows is plain data (Report), which FromHost reads from a host.Host (its
// caller adds the last reload); the gateway is read through its exported methods only.
package status

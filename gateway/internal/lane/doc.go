// Package lane serves, off net/http, the keep-alive HTTP/1.1 POSTs its taker answers whole
// with one write: the connections `agentpool serve` passes tools/call calls through on.
//
// A connection comes to the lane hijacked from net/http after an answer (Lane.Serve) and goes
// back to net/http, through the listener Lane.Listen wraps, at the first request the lane does
// not take, with that request's bytes unread: a head outside ParseHead's strict subset of
// HTTP/1.1 (POST, origin-form target, CRLF lines, one Host, one Content-Length, no
// Transfer-Encoding, Expect, Upgrade or Connection but keep-alive), a request larger than the
// buffer, or one Options.Take refuses. So net/http still parses, checks and answers everything
// unusual or malformed; ParseHead is fuzzed against http.ReadRequest so that what it takes,
// net/http would read the same way.
//
// What the lane keeps of net/http for the connections it holds: the idle timeout and the
// header timeout (which bounds a request begun, head and body), a call's context ended when
// its client goes away (the connection's goroutine reads on while the call runs), one answer
// at a time in request order (a pipelined request waits for the answer before it), a panic
// ending only its connection, and a graceful Shutdown. Writes are bounded by whatever bounds
// the connection's writes (serve's writestall listener).
//
// Why: per passed-through call net/http parks and wakes the handler's goroutine, starts and
// stops a background read, and parses and writes headers through maps; on the lane a call
// costs its connection's goroutine one read and its worker one write. The design notes
// (docs/design/gateway-http.md) give the measurements.
package lane

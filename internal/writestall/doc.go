// Package writestall bounds every write a server makes to a client: each must make progress
// within a stall bound or fail, whatever wrote it (a handler, net/http flushing what it
// buffered after the handler returned, a hijacker, TLS).
//
// Listen wraps a listener so that the connections it hands out set a write deadline of
// now+stall before each Write (up to stall/16 later: a deadline set that recently is kept). A
// Write that times out having written something since its deadline was set gets a fresh
// deadline and goes on, so a long-lived stream its client reads, however slowly, keeps working:
// nothing is cut by total time, only by a stall. A Write that wrote nothing for a whole stall
// fails with a timeout (net.Error), and net/http then closes the connection: within two
// stalls (plus stall/16 each) of its last progress, since a Write that made progress early
// in one deadline starts the next. A deadline set by the connection's user (SetDeadline, SetWriteDeadline) is kept
// when it comes earlier than the stall's, and a Write never outlives it. CloseWrite half-closes
// the raw connection, as net/http expects before it closes one.
//
// Wrap the raw connections: a TLS listener goes around this one, so that its handshake and its
// records are bounded too, and a stalled write never reaches the TLS layer as a timeout.
package writestall

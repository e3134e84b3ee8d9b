package connpool

import "errors"

// Sentinel errors callers branch on with errors.Is. They are always wrapped
// with the server's name and the details.
var (
	// ErrPoolExhausted reports that MaxClients clients are live, none is idle,
	// and the caller's context ended before one was released. The error also
	// wraps the context's error.
	ErrPoolExhausted = errors.New("connection pool exhausted")
	// ErrClosed reports a Get on a pool after Close.
	ErrClosed = errors.New("connection pool closed")
	// ErrInvalidConfig reports a ServerConfig that fails Validate.
	ErrInvalidConfig = errors.New("invalid server config")
	// ErrStart reports that a server could not be started, connected or
	// initialized within its StartTimeout; the message carries the stderr tail.
	// Failed starts are not cached: the next Get tries again.
	ErrStart = errors.New("server failed to start")
	// ErrServerExited reports that a live server's session ended (its process
	// exited, was killed, or its connection dropped).
	ErrServerExited = errors.New("server session ended")
)

package connpool

import "errors"

// Sentinel errors callers branch on with errors.Is. They are always wrapped
// with the server's name and the details.
var (
	// ErrPoolExhausted reports that a cap is met (MaxClients clients live in the
	// partition, or MaxTotalClients in all, each plus Pool.Reserve's count) and no idle client
	// makes room. The message names the cap's config key. When the Get waited for a start in
	// progress and its context ended first, the error also wraps the context's error.
	ErrPoolExhausted = errors.New("connection pool exhausted")
	// ErrClosed reports a Get on a pool after Close.
	ErrClosed = errors.New("connection pool closed")
	// ErrInvalidConfig reports a ServerConfig that fails Validate.
	ErrInvalidConfig = errors.New("invalid server config")
	// ErrStart reports that a server could not be started, connected or
	// initialized within its StartupTimeout; the message carries the stderr tail.
	// Failed starts are not cached: the next Get tries again.
	ErrStart = errors.New("server failed to start")
	// ErrStartTimeout reports a start that did not finish (spawn, connect,
	// initialize) within the server's StartTimeout. It is wrapped together with
	// ErrStart. The server may only be slow (a first `npx -y` download), so it
	// is not ErrPermanent: the next Get starts it again.
	ErrStartTimeout = errors.New("start timed out")
	// ErrPermanent marks a start failure that trying again at once cannot
	// mend: the command does not exist or may not be executed (ENOENT,
	// EACCES, also for its cwd), or an HTTP server answered the first request
	// (initialize; the event-stream GET for SSE) with 401, 403 or 404. It is
	// wrapped together with ErrStart. Like every failed start it is not
	// cached: the binary may appear or the token be fixed, and the next Get
	// tries again.
	ErrPermanent = errors.New("permanent failure")
	// ErrServerExited reports that a live server's session ended (its process
	// exited, was killed, or its connection dropped).
	ErrServerExited = errors.New("server session ended")
)

// The errors of a call (Conn.CallRaw, or the go-sdk session's own calls, through CallError)
// that say what became of the connection: callers branch on them with errors.Is to decide
// whether a call may be repeated on a new connection. Each wraps the error that tells the
// details, whose message it keeps.
var (
	// ErrLost reports that the connection was lost under a request that may have reached the
	// server: it ended before the answer (the server exited, the stream or the HTTP exchange
	// broke, the server forgot the session). Repeat the request only if it is safe to do twice.
	ErrLost = errors.New("connection lost")
	// ErrNotSent reports a request that never left: the connection was closed or closing
	// before it was written, or its HTTP connection could not be dialled. Repeating it on a
	// new connection is safe.
	ErrNotSent = errors.New("request not sent")
)

// marked is err, which also matches kind (ErrLost or ErrNotSent) with errors.Is; its message
// is err's.
type marked struct {
	err, kind error
}

func (e *marked) Error() string   { return e.err.Error() }
func (e *marked) Unwrap() []error { return []error{e.err, e.kind} }

// lost marks err as ErrLost.
func lost(err error) error { return &marked{err: err, kind: ErrLost} }

// notSent marks err as ErrNotSent.
func notSent(err error) error { return &marked{err: err, kind: ErrNotSent} }

// limitError is an error of a cap reached, ErrPoolExhausted among what it wraps: its message
// names the cap's config key, which LimitKey returns (ext.LimitKey recognises it; connpool does
// not import ext).
type limitError struct {
	key string
	err error
}

func (e *limitError) Error() string    { return e.err.Error() }
func (e *limitError) Unwrap() error    { return e.err }
func (e *limitError) LimitKey() string { return e.key }

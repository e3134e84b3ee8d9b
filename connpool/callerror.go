package connpool

import (
	"errors"
	"io"
	"io/fs"
	"net"
	"syscall"

	"github.com/agentpool/agentpool/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CallError returns err, the error of a call on a go-sdk client session (a lease's Session,
// or a session of the caller's own), marked with ErrNotSent or ErrLost when it says what
// became of the connection, and as it is otherwise (an error the server answered, a cancelled
// context, a bad request). Errors of Conn.CallRaw, and the transport errors of a pool's
// client, are marked already; the go-sdk's own are marked here: mcp.ErrConnectionClosed (its
// refusal to write on a connection that is closing) is ErrNotSent; the end of the stream
// (io.EOF, io.ErrUnexpectedEOF), mcp.ErrSessionMissing and a pipe or socket closed under the
// call are ErrLost. CallError(nil) is nil.
func CallError(err error) error {
	switch {
	case err == nil, errors.Is(err, ErrNotSent), errors.Is(err, ErrLost):
		return err
	case errors.Is(err, mcp.ErrConnectionClosed):
		// The go-sdk returns it only for requests refused before they were written.
		return notSent(err)
	case answered(err):
		return err
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, mcp.ErrSessionMissing),
		errors.Is(err, fs.ErrClosed), errors.Is(err, net.ErrClosed), errors.Is(err, syscall.EPIPE):
		return lost(err)
	}
	return err
}

// answered reports whether err is a JSON-RPC error the server (or an HTTP status) answered
// with, rather than the go-sdk's report of a transport failure.
func answered(err error) bool {
	var we *jsonrpc.Error
	return errors.As(err, &we)
}

// CallError is the package's CallError for a call on this lease, which also knows whether its
// client has ended: any other transport error of a call on an ended client is ErrLost. The
// pool ends a client before the failure that ends it reaches a caller (a stdio stream that
// ended or could not be written, an HTTP request that got no response, a 404 to the session),
// so no wait is needed to tell.
func (c *Conn) CallError(err error) error {
	err = CallError(err)
	if err == nil || errors.Is(err, ErrNotSent) || errors.Is(err, ErrLost) || answered(err) {
		return err
	}
	if c.c.ended.Load() {
		return lost(err)
	}
	return err
}

// errRejected is the go-sdk's "rejected by transport", which Conn.CallRaw's HTTP errors wrap
// as the session's own calls do, so that a caller answers its client alike on both paths.
var errRejected = wire.ErrRejected

package gateway

import (
	"context"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The gateway speaks the protocol up to maxProtocolVersion, whose handshake is initialize.
// server/discover, the handshake of 2026-07-28, is answered as a server of those versions
// answers a method it does not know: -32601, on every transport and whatever version the
// request's _meta names. Answered -32022 with the versions supported (what the go-sdk does
// for a _meta version it does not serve), a client may take the gateway for a server of the
// newer protocol and give up instead of falling back to initialize.

// methodDiscover is the 2026-07-28 handshake's method.
const methodDiscover = "server/discover"

// errDiscover is the answer to every server/discover request.
var errDiscover = &jsonrpc.Error{
	Code:    jsonrpc.CodeMethodNotFound,
	Message: methodDiscover + ": not supported; use initialize (protocol " + maxProtocolVersion + " at most)",
}

// discoverRefused answers a POST holding one server/discover request with errDiscover (HTTP
// 200, the answer of a well-formed request) and reports whether it did.
func discoverRefused(w http.ResponseWriter, env *envelope) bool {
	m := env.one()
	if m == nil || m.Method != methodDiscover || !m.IsRequest() {
		return false
	}
	writeRPCError(w, http.StatusOK, m.SDKID(), errDiscover.Code, errDiscover.Message)
	return true
}

// legacyTransport is a stream transport (stdio) whose connection answers server/discover
// itself, before the go-sdk sees it.
type legacyTransport struct{ mcp.Transport }

func (t legacyTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return legacyConn{c}, nil
}

// legacyConn answers the server/discover requests it reads with errDiscover and drops such
// notifications; it passes every other message on.
type legacyConn struct{ mcp.Connection }

func (c legacyConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		if err != nil {
			return msg, err
		}
		req, ok := msg.(*jsonrpc.Request)
		if !ok || req.Method != methodDiscover {
			return msg, nil
		}
		if req.IsCall() {
			if err := c.Connection.Write(ctx, &jsonrpc.Response{ID: req.ID, Error: errDiscover}); err != nil {
				return nil, err
			}
		}
	}
}

package gateway

import (
	"cmp"
	"io"
	"net/http"
	"os"

	"github.com/agentpool/agentpool/gateway/internal/stdioframe"
	"github.com/agentpool/agentpool/internal/wire"
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

// framed returns t with what the gateway answers itself on a stream (stdio) framed below
// the go-sdk (stdioframe): server/discover, batches by s's protocol version, and a request
// past Options.MaxInflight. A transport that is not a stream is returned as it is.
func (g *Gateway) framed(t mcp.Transport, s *session) mcp.Transport {
	st := &stdioframe.Transport{Options: stdioframe.Options{
		Refused: func(method string) *jsonrpc.Error {
			if method == methodDiscover {
				return errDiscover
			}
			return nil
		},
		MaxBatch: maxBatch,
		BatchRefusal: func(n int, msgs []wire.Message) string {
			return batchRefusal(cmp.Or(s.negotiatedVersion(), initVersion(msgs)), n)
		},
		MaxInflight:   g.opts.MaxInflight,
		InflightError: func() *jsonrpc.Error { return inflightError(s, g.opts.MaxInflight) },
	}}
	switch t := t.(type) {
	case *mcp.IOTransport:
		st.In, st.Out, st.MaxLine = t.Reader, t.Writer, t.MaxLineLength
	case *mcp.StdioTransport:
		st.In, st.Out, st.MaxLine = os.Stdin, openStdout{os.Stdout}, t.MaxLineLength
	default:
		return t
	}
	return st
}

// openStdout is stdout, left open when the connection closes, as mcp.StdioTransport leaves it.
type openStdout struct{ io.Writer }

func (openStdout) Close() error { return nil }

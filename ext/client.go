package ext

import (
	"context"
	"encoding/json"
)

// Client is the client on whose behalf a request runs: the MCP client session of a gateway
// (or an agent) that called a tool. An upstream MCP server's requests to "its client"
// (sampling, elicitation, roots) are answered by the Client of the call that caused them.
//
// Params and results are the requests' JSON as MCP defines it (sampling/createMessage,
// elicitation/create, roots/list), so nothing is lost between the two sides. A method the
// client cannot answer (it did not declare the capability) returns an error; a JSON-RPC
// error from the client should be returned as is, so it reaches the server with its code.
type Client interface {
	// SessionID identifies the client session: two calls with the same SessionID come from
	// the same client, whichever Client value each carries.
	SessionID() string
	// CreateMessage asks the client to sample (sampling/createMessage).
	CreateMessage(ctx context.Context, params json.RawMessage) (json.RawMessage, error)
	// Elicit asks the client's user for input (elicitation/create).
	Elicit(ctx context.Context, params json.RawMessage) (json.RawMessage, error)
	// ListRoots asks the client for its roots (roots/list).
	ListRoots(ctx context.Context, params json.RawMessage) (json.RawMessage, error)
}

type clientKey struct{}

// WithClient returns ctx carrying c as the client on whose behalf the request runs; a
// capability that forwards the request (an MCP server's tool call) finds it with ClientFrom.
func WithClient(ctx context.Context, c Client) context.Context {
	return context.WithValue(ctx, clientKey{}, c)
}

// ClientFrom returns the client ctx carries, or nil.
func ClientFrom(ctx context.Context) Client {
	c, _ := ctx.Value(clientKey{}).(Client)
	return c
}

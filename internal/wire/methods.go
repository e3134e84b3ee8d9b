package wire

import "github.com/modelcontextprotocol/go-sdk/jsonrpc"

// Side is the end of an MCP session that receives a method.
type Side uint8

const (
	// Server marks a method a server receives (sent by the client).
	Server Side = 1 << iota
	// Client marks a method a client receives (sent by the server).
	Client
)

// Method describes one MCP method the go-sdk knows.
type Method struct {
	// Notification is true for a method sent without an id, which is never answered.
	Notification bool
	// To is the side (or sides) that receives it.
	To Side
}

// methods is the go-sdk's own table of the methods its servers and clients receive (its
// serverMethodInfos and clientMethodInfos, which it does not export). The package's tests
// check it against a go-sdk server and client, method by method, so an SDK upgrade that adds
// or drops a method fails them.
var methods = map[string]Method{
	"initialize":               {To: Server},
	"ping":                     {To: Server | Client},
	"server/discover":          {To: Server},
	"completion/complete":      {To: Server | Client},
	"tools/list":               {To: Server},
	"tools/call":               {To: Server},
	"prompts/list":             {To: Server},
	"prompts/get":              {To: Server},
	"resources/list":           {To: Server},
	"resources/templates/list": {To: Server},
	"resources/read":           {To: Server},
	"resources/subscribe":      {To: Server},
	"resources/unsubscribe":    {To: Server},
	"subscriptions/listen":     {To: Server},
	"logging/setLevel":         {To: Server},
	"roots/list":               {To: Client},
	"sampling/createMessage":   {To: Client},
	"elicitation/create":       {To: Client},

	"notifications/initialized":                {Notification: true, To: Server},
	"notifications/cancelled":                  {Notification: true, To: Server | Client},
	"notifications/progress":                   {Notification: true, To: Server | Client},
	"notifications/roots/list_changed":         {Notification: true, To: Server},
	"notifications/tools/list_changed":         {Notification: true, To: Client},
	"notifications/prompts/list_changed":       {Notification: true, To: Client},
	"notifications/resources/list_changed":     {Notification: true, To: Client},
	"notifications/resources/updated":          {Notification: true, To: Client},
	"notifications/message":                    {Notification: true, To: Client},
	"notifications/elicitation/complete":       {Notification: true, To: Client},
	"notifications/subscriptions/acknowledged": {Notification: true, To: Client},
}

// Lookup returns what the go-sdk knows of method; ok is false for a method it does not know
// (a go-sdk peer answers a request of it with CodeMethodNotFound, unless added as a custom
// method).
func Lookup(method string) (m Method, ok bool) {
	m, ok = methods[method]
	return m, ok
}

// ServerRequest reports whether method is a request a go-sdk server answers (any other
// request it answers with CodeMethodNotFound).
func ServerRequest(method string) bool {
	m, ok := methods[method]
	return ok && !m.Notification && m.To&Server != 0
}

// The JSON-RPC error codes agentpool reads and writes: JSON-RPC 2.0's, and those of the
// go-sdk and MCP.
const (
	CodeParseError     = jsonrpc.CodeParseError
	CodeInvalidRequest = jsonrpc.CodeInvalidRequest
	CodeMethodNotFound = jsonrpc.CodeMethodNotFound
	CodeInvalidParams  = jsonrpc.CodeInvalidParams
	CodeInternalError  = jsonrpc.CodeInternalError
	// CodeServerError is the first of the implementation-defined server errors
	// (-32000 to -32099): a request the server cannot take now.
	CodeServerError = -32000
	// CodeRejected is the go-sdk's "rejected by transport" (its jsonrpc2.ErrRejected,
	// internal to it): an HTTP transport could not deliver the request or got no JSON-RPC
	// answer to it.
	CodeRejected = -32005
)

// ErrRejected is the go-sdk's "rejected by transport" error, by code: errors.Is(err,
// ErrRejected) holds for the go-sdk's own (a *jsonrpc.Error matches any of the same code).
var ErrRejected error = &jsonrpc.Error{Code: CodeRejected, Message: "rejected by transport"}

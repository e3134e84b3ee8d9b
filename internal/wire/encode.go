package wire

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The Append functions write messages in the form the go-sdk's jsonrpc.EncodeMessage writes
// them (the same fields in the same order, no HTML escaping), for the paths that pass bytes
// through without building a jsonrpc.Message: params and results are copied as they are.

// AppendRequest appends a request with a string id; params may be nil (none).
func AppendRequest(b []byte, id, method string, params json.RawMessage) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = AppendString(b, id)
	b = append(b, `,"method":`...)
	b = AppendString(b, method)
	return appendParams(b, params)
}

// AppendNumberedRequest is AppendRequest with the id prefix followed by n in decimal (which
// NumberedID reads); prefix needs no escaping in a JSON string.
func AppendNumberedRequest(b []byte, prefix string, n uint64, method string, params json.RawMessage) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":"`...)
	b = append(b, prefix...)
	b = strconv.AppendUint(b, n, 10)
	b = append(b, `","method":`...)
	b = AppendString(b, method)
	return appendParams(b, params)
}

// AppendNotification appends a notification; params may be nil (none).
func AppendNotification(b []byte, method string, params json.RawMessage) []byte {
	b = append(b, `{"jsonrpc":"2.0","method":`...)
	b = AppendString(b, method)
	return appendParams(b, params)
}

func appendParams(b []byte, params json.RawMessage) []byte {
	if len(params) > 0 {
		b = append(b, `,"params":`...)
		b = append(b, params...)
	}
	return append(b, '}')
}

// AppendResult appends the response to the request whose id is id (its JSON text, as the
// request carried it) with result (a JSON value).
func AppendResult(b []byte, id, result json.RawMessage) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"result":`...)
	b = append(b, result...)
	return append(b, '}')
}

// AppendError appends the error response to the request whose id is id (its JSON text; nil
// for a request whose id could not be read, written as null as JSON-RPC requires).
func AppendError(b []byte, id json.RawMessage, e *jsonrpc.Error) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	if id == nil {
		id = json.RawMessage("null")
	}
	b = append(b, id...)
	b = append(b, `,"error":{"code":`...)
	b = strconv.AppendInt(b, e.Code, 10)
	b = append(b, `,"message":`...)
	b = AppendString(b, e.Message)
	if len(e.Data) > 0 {
		b = append(b, `,"data":`...)
		b = append(b, e.Data...)
	}
	return append(b, "}}"...)
}

// AppendCancelled appends the notifications/cancelled of the request whose id is the string
// id, with reason.
func AppendCancelled(b []byte, id, reason string) []byte {
	b = append(b, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`...)
	b = AppendString(b, id)
	b = append(b, `,"reason":`...)
	b = AppendString(b, reason)
	return append(b, "}}"...)
}

// AppendString appends s as a JSON string, as the go-sdk's encoder writes it.
func AppendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(s) // a string always encodes
			return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

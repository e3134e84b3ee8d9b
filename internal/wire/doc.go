// Package wire reads and writes MCP's wire formats by hand, for the paths that pass messages
// through without the go-sdk: JSON-RPC 2.0 messages and batches (Decode, DecodeBatch, the
// Append functions), server-sent events (EventReader, AppendEvent), the stdio transport's
// newline-delimited framing (LineReader, AppendLine), the go-sdk's tables of methods
// (Lookup) and error codes, and what a tools/call passed through is read for
// (DecodeCallParams, and PlainID, PlainMeta and AcceptsJSON, which decide that it may be).
//
// Each agrees with the go-sdk, as its tests check message for message: Decode accepts and
// rejects what jsonrpc.DecodeMessage does and returns the same message; EventReader reads an
// event stream as the go-sdk's client does, and what AppendEvent writes a go-sdk client reads;
// the method table is the one go-sdk servers and clients answer. A message is decoded once,
// and the Message handed on: its ID, Params and Result are the bytes as they came.
//
// The package depends on the standard library and the go-sdk's jsonrpc package only.
package wire

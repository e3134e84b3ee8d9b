package gateway

import (
	"bytes"
	"encoding/json"

	"github.com/agentpool/agentpool/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// envelope is a POST body decoded once (wire.DecodeBatch), handed to everything that looks at
// it before the go-sdk does: the pass-through path, the checks that answer what the go-sdk
// would answer in plain text, and the test for initialize.
type envelope struct {
	body  []byte
	msgs  []wire.Message  // the messages, when the body decoded
	batch bool            // the body is an array
	n     int             // the messages the body holds: len(msgs), or the count of a batch past maxBatch
	err   error           // why the body is no JSON-RPC message or batch; nil when it is one
	one1  [1]wire.Message // msgs of a body that is one message: no slice of its own
}

// decodeEnvelope decodes body. A batch of more than maxBatch messages is only counted (n), its
// messages left undecoded (msgs nil): it is refused whatever they hold.
func decodeEnvelope(body []byte) *envelope {
	e := &envelope{body: body}
	if n := wire.BatchLen(body); n > maxBatch {
		e.batch, e.n = true, n
		return e
	}
	if !wire.IsBatch(body) {
		if e.one1[0], e.err = wire.Decode(body); e.err == nil {
			e.msgs = e.one1[:]
		}
	} else {
		e.msgs, e.batch, e.err = wire.DecodeBatch(body)
	}
	e.n = len(e.msgs)
	return e
}

// one returns the body's message when it is a single valid message, else nil.
func (e *envelope) one() *wire.Message {
	if e.err != nil || e.batch || len(e.msgs) != 1 {
		return nil
	}
	return &e.msgs[0]
}

// served reports whether a session's server answers requests of method: the go-sdk's own
// (wire's table) and the skill catalogue's (SEP-2640).
func served(method string) bool {
	return wire.ServerRequest(method) || method == methodSkillsList || method == methodSkillsGet
}

// checkMessage finds what the go-sdk would refuse in plain text: a body that is not JSON
// (code -32700) and a request (with an id) of an unknown method (-32601). code is 0 for
// anything else, batches and notifications included, which the go-sdk handles.
func checkMessage(env *envelope) (id jsonrpc.ID, code int64, msg string) {
	if env.err == nil {
		if m := env.one(); m != nil && m.IsRequest() && m.Method != "" && !served(m.Method) {
			return m.SDKID(), jsonrpc.CodeMethodNotFound, "method not found: " + m.Method
		}
		return id, 0, ""
	}
	// Not a valid message or batch: read as loosely as the go-sdk's handler would, so that the
	// error says what it would have said.
	trimmed := bytes.TrimSpace(env.body)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		if !json.Valid(trimmed) {
			return id, jsonrpc.CodeParseError, "parse error: the body is not valid JSON"
		}
		return id, 0, ""
	}
	var m struct {
		ID     any    `json:"id"`
		Method string `json:"method"`
	}
	if err := json.Unmarshal(trimmed, &m); err != nil {
		return id, jsonrpc.CodeParseError, "parse error: " + err.Error()
	}
	if m.ID == nil || m.Method == "" || served(m.Method) {
		return id, 0, ""
	}
	id, err := jsonrpc.MakeID(m.ID)
	if err != nil {
		return id, jsonrpc.CodeInvalidRequest, "invalid request id"
	}
	return id, jsonrpc.CodeMethodNotFound, "method not found: " + m.Method
}

// initializeIn reports whether the body (one JSON-RPC message or a batch) holds an initialize
// request, and the id of its first request. A body that is not JSON is an error.
func initializeIn(env *envelope) (jsonrpc.ID, bool, error) {
	if env.err == nil {
		var id jsonrpc.ID
		isInit := false
		for i := range env.msgs {
			m := &env.msgs[i]
			if i == 0 {
				id = m.SDKID()
			}
			if m.Method == "initialize" {
				isInit = true
				id = m.SDKID()
			}
		}
		return id, isInit, nil
	}
	type msg struct {
		ID     any    `json:"id"`
		Method string `json:"method"`
	}
	var msgs []msg
	trimmed := bytes.TrimSpace(env.body)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		if err := json.Unmarshal(trimmed, &msgs); err != nil {
			return jsonrpc.ID{}, false, err
		}
	} else {
		var m msg
		if err := json.Unmarshal(trimmed, &m); err != nil {
			return jsonrpc.ID{}, false, err
		}
		msgs = []msg{m}
	}
	var id jsonrpc.ID
	isInit := false
	for i, m := range msgs {
		if i == 0 {
			id, _ = jsonrpc.MakeID(m.ID)
		}
		if m.Method == "initialize" {
			isInit = true
			id, _ = jsonrpc.MakeID(m.ID)
		}
	}
	return id, isInit, nil
}

package gateway

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/agentpool/agentpool/gateway/internal/heldbody"
	"github.com/agentpool/agentpool/internal/httpbuf"
	"github.com/agentpool/agentpool/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// JSON-RPC batches exist in protocol 2025-03-26 and before; 2025-06-18 removed them. A POST
// whose body is an array is read under the version of its exchange: the Mcp-Protocol-Version
// header; without one, the version the session negotiated, or the one its initialize asks
// for. Where that version has batches, the messages are served one after the other, each as
// if it had been POSTed alone, and their answers come back as one JSON array (HTTP 200;
// 202 when none has an answer); once the client has gone, the messages not yet served are
// not served. What the server sends during a call other than its answer (progress, log
// messages, a request to the client) is not kept. Anywhere else, and past maxBatch messages,
// the whole body is refused with -32600 (HTTP 400) saying why. In stateless mode the same
// refusals apply, and a batch accepted is the go-sdk's to answer.

// maxBatch caps the messages of one batch.
const maxBatch = 64

// batchesEnd is the first protocol version without JSON-RPC batches.
const batchesEnd = "2025-06-18"

// batchRefusal returns why a batch of n messages read under version is refused, or "".
func batchRefusal(version string, n int) string {
	switch {
	case version == "":
		return "JSON-RPC batches need protocol 2025-03-26 or earlier, and this request names no version (no Mcp-Protocol-Version header, no session): send one message per POST"
	case version >= batchesEnd:
		return "JSON-RPC batches are not part of protocol " + version + " (" + batchesEnd + " and later): send one message per POST"
	case n > maxBatch:
		return fmt.Sprintf("a JSON-RPC batch holds at most %d messages; this one holds %d", maxBatch, n)
	}
	return ""
}

// negotiated returns the version initialize settles on when a client asks for requested: that
// one when the gateway supports it, else its newest.
func negotiated(requested string) string {
	if slices.Contains(supportedVersions, requested) {
		return requested
	}
	return maxProtocolVersion
}

// batchVersion returns the version the batch env holds is read under (above), or "".
func batchVersion(r *http.Request, env *envelope, s *session) string {
	if v := r.Header.Get("Mcp-Protocol-Version"); v != "" {
		return v
	}
	if s != nil {
		return s.negotiatedVersion()
	}
	return initVersion(env.msgs)
}

// negotiatedVersion returns the version s negotiated, or "" before its initialize.
func (s *session) negotiatedVersion() string {
	if ss := s.conn(); ss != nil {
		if p := ss.InitializeParams(); p != nil {
			return negotiated(p.ProtocolVersion)
		}
	}
	return ""
}

// initVersion returns the version an initialize among msgs settles on, or "".
func initVersion(msgs []wire.Message) string {
	for i := range msgs {
		if m := &msgs[i]; m.Method == "initialize" {
			var p struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			if json.Unmarshal(m.Params, &p) == nil && p.ProtocolVersion != "" {
				return negotiated(p.ProtocolVersion)
			}
		}
	}
	return ""
}

// serveBatch serves a POST whose body is a batch (env.batch, decoded): each message through
// post, in order, as a POST of its own with the request's headers, and the session an
// initialize among them opened named in the rest and in the answer.
func (h *sessionHTTP) serveBatch(w http.ResponseWriter, r *http.Request, env *envelope, s *session) {
	if why := batchRefusal(batchVersion(r, env, s), env.n); why != "" {
		writeRPCError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, why)
		return
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(env.body, &raws); err != nil || len(raws) != len(env.msgs) {
		writeRPCError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeParseError, "parse error: the batch does not split into its messages")
		return
	}
	sid := r.Header.Get(sessionHeader)
	answers := make([]json.RawMessage, 0, len(raws))
	for i, raw := range raws {
		if r.Context().Err() != nil {
			return // the client has gone: the rest would run for no one
		}
		sub := r.Clone(r.Context())
		heldbody.Hold(sub, raw)
		sub.ContentLength = int64(len(raw))
		if sid != "" {
			sub.Header.Set(sessionHeader, sid)
		}
		rec := &recorder{}
		h.post(rec, sub)
		if id := rec.Header().Get(sessionHeader); id != "" && sid == "" {
			sid = id
		}
		for _, a := range rec.answers(&env.msgs[i]) {
			answers = append(answers, a)
		}
	}
	if sid != "" {
		w.Header().Set(sessionHeader, sid)
	}
	if len(answers) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	data, err := json.Marshal(answers)
	if err != nil {
		writeRPCError(w, http.StatusInternalServerError, jsonrpc.ID{}, jsonrpc.CodeInternalError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(data)
}

// recorder holds the answer to one message of a batch (an event stream is read once whole).
type recorder struct{ httpbuf.Response }

// answers returns the JSON-RPC responses written for m; an answer in plain text (an error
// of the go-sdk's) becomes m's JSON-RPC error.
func (rec *recorder) answers(m *wire.Message) [][]byte {
	out := wire.Responses(rec.Header().Get("Content-Type"), rec.Body.Bytes())
	if len(out) == 0 && m.IsRequest() && rec.Status >= 400 {
		msg := cmp.Or(strings.TrimSpace(rec.Body.String()), http.StatusText(rec.Status))
		if data, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: m.SDKID(), Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: msg}}); err == nil {
			out = append(out, data)
		}
	}
	return out
}

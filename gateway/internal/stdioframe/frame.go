// Package stdioframe is the gateway's stdio transport: the newline-delimited stream of one
// client, read and written below the go-sdk, which sees only the messages it is to serve.
//
// It answers, before the go-sdk sees them, what the go-sdk would answer otherwise or not at
// all: requests of a method refused outright (Options.Refused), one request more than
// Options.MaxInflight in flight, a request whose id a request being served has (-32600 with
// no id: the go-sdk would drop it unanswered), and JSON-RPC batches. The go-sdk keeps its own connection
// (its protocol negotiation included) and is never handed a batch: the transport serves a
// batch Options.BatchRefusal accepts itself, its messages one after the other (a request's
// answer awaited before the next message is passed on) and their answers written as one JSON
// array; what the server sends meanwhile (progress, logs, requests to the client) is written
// as it comes. A batch past Options.MaxBatch messages is only counted, never decoded.
//
// It depends on the go-sdk and internal/wire only.
package stdioframe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/agentpool/agentpool/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options says what a Transport answers itself.
type Options struct {
	// Refused returns the error answering a request of method, or nil to serve it; a
	// notification of a refused method is dropped.
	Refused func(method string) *jsonrpc.Error
	// MaxBatch is the most messages of a batch that are decoded (and handed to BatchRefusal).
	MaxBatch int
	// BatchRefusal returns why a batch of n messages is refused (-32600), or "" to serve it;
	// msgs is nil when n is past MaxBatch.
	BatchRefusal func(n int, msgs []wire.Message) string
	// MaxInflight caps the requests being served at once (a batch served counts as one);
	// <= 0: no cap. InflightError is the error answering one request more.
	MaxInflight   int
	InflightError func() *jsonrpc.Error
	// MaxLine caps one message's bytes (0: mcp.DefaultMaxLineLength; negative: no cap), as
	// the MaxLineLength of the go-sdk's stream transports does.
	MaxLine int
}

// Transport is an mcp.Transport over a client's stdin (In) and stdout (Out). Connect may be
// called once.
type Transport struct {
	In  io.ReadCloser
	Out io.WriteCloser
	Options
}

// Connect starts reading In and returns the go-sdk's connection over what passes through.
func (t *Transport) Connect(ctx context.Context) (mcp.Connection, error) {
	pr, pw := io.Pipe()
	f := &frame{Options: t.Options, in: t.In, out: t.Out, sdk: pw, done: make(chan struct{}),
		waiting: map[jsonrpc.ID]chan []byte{}, inflight: map[jsonrpc.ID]int{}}
	switch {
	case f.MaxLine == 0:
		f.MaxLine = mcp.DefaultMaxLineLength
	case f.MaxLine < 0:
		f.MaxLine = math.MaxInt / 2
	}
	go f.read()
	return (&mcp.IOTransport{Reader: &sdkReader{pr, f}, Writer: &sdkWriter{f: f}, MaxLineLength: -1}).Connect(ctx)
}

// frame is one connection's state.
type frame struct {
	Options
	in   io.ReadCloser
	out  io.WriteCloser
	sdk  *io.PipeWriter // what the go-sdk reads
	done chan struct{}  // closed when the go-sdk closes its connection

	mu       sync.Mutex
	waiting  map[jsonrpc.ID]chan []byte // answers awaited by a batch, by request id
	inflight map[jsonrpc.ID]int         // requests passed to the go-sdk and not yet answered
	n        int                        // requests (and batches) being served
	outMu    sync.Mutex
	closing  sync.Once
}

// read passes In's messages on until In ends or the go-sdk closes.
func (f *frame) read() {
	lr := wire.NewLineReader(f.in, f.MaxLine)
	for {
		line, err := lr.Next()
		if err != nil && !errors.Is(err, wire.ErrParse) {
			_ = f.sdk.CloseWithError(err) // io.EOF: the go-sdk sees the client leave
			return
		}
		if err != nil { // not JSON: the go-sdk says so as it always has
			err = f.feed(line)
		} else {
			err = f.message(line)
		}
		if err != nil {
			return
		}
	}
}

// message passes on or answers one line that is JSON.
func (f *frame) message(line []byte) error {
	if wire.IsBatch(line) {
		f.batch(line)
		return nil
	}
	m, err := wire.Decode(line)
	if err != nil {
		return f.feed(line) // the go-sdk's to refuse
	}
	if m.HasMethod && f.Refused != nil {
		if e := f.Refused(m.Method); e != nil {
			if m.IsRequest() {
				f.write(wire.AppendError(nil, m.ID, e))
			}
			return nil
		}
	}
	if m.IsRequest() {
		busy, ok := f.admit(m.SDKID())
		if busy {
			// The go-sdk would drop it unanswered; an answer naming its id could not be told
			// from the other's.
			f.write(wire.AppendError(nil, nil, idInUse(m.ID)))
			return nil
		}
		if !ok {
			f.write(wire.AppendError(nil, m.ID, f.InflightError()))
			return nil
		}
	}
	return f.feed(line)
}

// admit counts a request of id in flight and reports ok; or reports busy when a request of
// id is being served already (in a batch or not), or neither at MaxInflight.
func (f *frame) admit(id jsonrpc.ID) (busy, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, waiting := f.waiting[id]; waiting || f.inflight[id] > 0 {
		return true, false
	}
	if f.MaxInflight > 0 && f.n >= f.MaxInflight {
		return false, false
	}
	f.n++
	f.inflight[id]++
	return false, true
}

// idInUse answers a request whose id another request being served has.
func idInUse(id json.RawMessage) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "id " + string(id) + " is already in flight"}
}

// batch refuses or serves a batch.
func (f *frame) batch(line []byte) {
	n := wire.BatchLen(line)
	var msgs []wire.Message
	var raws []json.RawMessage
	why := "empty batch"
	if n < 0 {
		why = "the batch nests deeper than JSON-RPC messages are read"
	}
	if n > 0 && n <= f.MaxBatch {
		var err error
		if msgs, _, err = wire.DecodeBatch(line); err == nil {
			err = json.Unmarshal(line, &raws)
		}
		if err != nil {
			why, n = err.Error(), 0
		}
	}
	if n > 0 {
		why = f.BatchRefusal(n, msgs)
	}
	if why != "" {
		f.write(wire.AppendError(nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: why}))
		return
	}
	if !f.enter() {
		// Its requests are refused; its notifications and responses (a cancellation that
		// frees a slot, an answer a call waits for) are passed on all the same.
		answers := make([][]byte, 0, len(msgs))
		for i, m := range msgs {
			if m.IsRequest() {
				answers = append(answers, wire.AppendError(nil, m.ID, f.InflightError()))
			} else if f.feed(raws[i]) != nil {
				break
			}
		}
		f.writeArray(answers)
		return
	}
	// Served beside the messages that follow it, which may answer a request of the server
	// (sampling) that a call of the batch waits for.
	go func() {
		defer f.leave()
		f.serveBatch(msgs, raws)
	}()
}

// serveBatch passes msgs on one after the other and writes their answers as one array.
func (f *frame) serveBatch(msgs []wire.Message, raws []json.RawMessage) {
	var answers [][]byte
	for i, m := range msgs {
		var answer chan []byte
		if m.IsRequest() {
			answer = make(chan []byte, 1)
			f.mu.Lock()
			_, dup := f.waiting[m.SDKID()]
			dup = dup || f.inflight[m.SDKID()] > 0
			if !dup {
				f.waiting[m.SDKID()] = answer
			}
			f.mu.Unlock()
			if dup { // its answer could not be told from the other's
				answers = append(answers, wire.AppendError(nil, m.ID, idInUse(m.ID)))
				continue
			}
		}
		if err := f.feed(raws[i]); err != nil || answer == nil {
			continue
		}
		select {
		case a := <-answer:
			answers = append(answers, a)
		case <-f.done:
			return
		}
	}
	f.writeArray(answers)
}

// enter counts one more request or batch being served, or reports false at MaxInflight.
func (f *frame) enter() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.MaxInflight > 0 && f.n >= f.MaxInflight {
		return false
	}
	f.n++
	return true
}

func (f *frame) leave() {
	f.mu.Lock()
	f.n--
	f.mu.Unlock()
}

// feed hands one message to the go-sdk.
func (f *frame) feed(msg []byte) error {
	_, err := f.sdk.Write(append(msg[:len(msg):len(msg)], '\n')) // a copy: msg may alias a batch
	return err
}

// answered routes a message the go-sdk writes: an answer a batch awaits goes to it (and true
// is returned), one to a request counted in flight ends its count.
func (f *frame) answered(msg []byte) bool {
	f.mu.Lock()
	idle := len(f.waiting) == 0 && len(f.inflight) == 0
	f.mu.Unlock()
	if idle { // nothing to route: not read at all
		return false
	}
	id, ok := responseID(msg)
	if !ok {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if ch, ok := f.waiting[id]; ok {
		delete(f.waiting, id)
		ch <- msg
		return true
	}
	if c, ok := f.inflight[id]; ok {
		if c <= 1 {
			delete(f.inflight, id)
		} else {
			f.inflight[id] = c - 1
		}
		f.n--
	}
	return false
}

// responseID reads the id of msg, a message the go-sdk wrote, and reports whether msg is a
// response, as wire.Decode does. The go-sdk writes a response's members in the order
// jsonrpc, id, result or error: such a head is read without reading the result; anything
// else is decoded.
func responseID(msg []byte) (jsonrpc.ID, bool) {
	const head = `{"jsonrpc":"2.0","id":`
	if rest, ok := bytes.CutPrefix(msg, []byte(head)); ok {
		n := bytes.IndexByte(rest, ',')
		if n > 0 {
			tail := rest[n:]
			if bytes.HasPrefix(tail, []byte(`,"result":`)) || bytes.HasPrefix(tail, []byte(`,"error":`)) {
				if id, ok := plainID(rest[:n]); ok {
					return id, true
				}
			}
		}
	}
	m, err := wire.Decode(msg)
	if err != nil || !m.IsResponse() {
		return jsonrpc.ID{}, false
	}
	return m.SDKID(), true
}

// plainID reads raw, an integer or a valid UTF-8 string without escapes, as wire.Decode
// reads an id.
func plainID(raw []byte) (jsonrpc.ID, bool) {
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' {
		s := raw[1 : len(raw)-1]
		if bytes.ContainsAny(s, "\\\"") || !utf8.Valid(s) {
			return jsonrpc.ID{}, false
		}
		id, err := jsonrpc.MakeID(string(s))
		return id, err == nil
	}
	i, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil || i > 1<<53 || i < -(1<<53) {
		return jsonrpc.ID{}, false
	}
	id, err := jsonrpc.MakeID(float64(i))
	return id, err == nil
}

// writeArray writes answers as one JSON array; nothing when there are none.
func (f *frame) writeArray(answers [][]byte) {
	if len(answers) > 0 {
		f.write(append(append([]byte{'['}, bytes.Join(answers, []byte{','})...), ']'))
	}
}

// write writes one message and its newline to Out, whole.
func (f *frame) write(msg []byte) {
	f.outMu.Lock()
	defer f.outMu.Unlock()
	_, _ = f.out.Write(append(msg, '\n'))
}

// sdkReader is what the go-sdk reads: In's messages that it is to serve.
type sdkReader struct {
	*io.PipeReader
	f *frame
}

// Close ends the connection: In is closed, so that a blocked read of it returns.
func (r *sdkReader) Close() error {
	r.f.closing.Do(func() { close(r.f.done) })
	_ = r.PipeReader.Close()
	return r.f.in.Close()
}

// sdkWriter is where the go-sdk writes: each whole line goes to Out, unless a batch awaits it.
type sdkWriter struct {
	f   *frame
	buf []byte
}

func (w *sdkWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := bytes.Clone(w.buf[:i])
		w.buf = w.buf[i+1:]
		if !w.f.answered(line) {
			w.f.write(line)
		}
	}
}

func (w *sdkWriter) Close() error { return w.f.out.Close() }

package connpool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentpool/agentpool/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The stdio transport is the pool's own (leanTransport) rather than the go-sdk's IOTransport,
// for two reasons, both costs on a gateway's hop (docs/design/connpool.md):
//
//   - The go-sdk decodes every message with a decoder that allocates a 32 KiB buffer, twice per
//     message (the envelope, then the method), and a gateway pays that on each side of a call.
//     Here a message is one newline-delimited line (as the MCP stdio transport specifies)
//     decoded with encoding/json into its envelope, params and result kept as raw bytes.
//   - A call can be passed through as raw JSON (Conn.CallRaw): written with an id of the pool's
//     own ("agentpool-raw-<n>", a string, where the SDK's ids are numbers) and its response
//     taken off the connection before the SDK sees it, so a gateway forwarding a tools/call
//     neither decodes nor re-encodes the result.
//
// Everything else — initialize, notifications, the server's requests, the SDK's own calls —
// flows to and from the go-sdk ClientSession unchanged, in the order the server sent it. Tapped
// notifications (progress, log messages) are delivered as they are read, before any later
// message, so they reach their observers ahead of the response that follows them (see
// deliverInOrder). A line that is not a complete JSON value is joined with the next lines, up
// to the frame limit, for servers that pretty-print.

// maxFrame bounds one inbound message, as the go-sdk's DefaultMaxLineLength does.
const maxFrame = mcp.DefaultMaxLineLength

// rawIDPrefix marks the ids of pass-through calls.
const rawIDPrefix = "agentpool-raw-"

// ErrNoRaw is returned by Conn.CallRaw for a connection that cannot pass calls through (a
// legacy SSE server); use the session instead.
var ErrNoRaw = errors.New("connpool: this connection does not pass calls through")

// leanTransport is the stdio transport of the pool's servers.
type leanTransport struct {
	r       io.ReadCloser
	w       io.WriteCloser
	deliver func(method string, params json.RawMessage) // tapped notifications, in order
	// ended, when set, is called once the stream has ended (the server's stdout closed or
	// unreadable, or its stdin refused a write), before any caller learns of it: the pool
	// then hands the client out no more, even while the process is still dying.
	ended func()
	conn  atomic.Pointer[leanConn] // set by Connect
}

func (t *leanTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &leanConn{
		w:        t.w,
		r:        t.r,
		deliver:  t.deliver,
		ended:    t.ended,
		incoming: make(chan leanRead, 16),
		closed:   make(chan struct{}),
		waiters:  map[uint64]chan rawReply{},
	}
	t.conn.Store(c)
	go c.readLoop(wire.NewLineReader(t.r, maxFrame))
	return c, nil
}

// leanRead is one message for the SDK, or the error that ended the stream.
type leanRead struct {
	msg jsonrpc.Message
	err error
}

// rawReply is the response to a pass-through call.
type rawReply struct {
	result json.RawMessage
	err    error
}

// leanConn is an mcp.Connection over a server's stdin and stdout.
type leanConn struct {
	w       io.WriteCloser
	r       io.ReadCloser
	deliver func(method string, params json.RawMessage)
	ended   func() // may be nil; see leanTransport.ended

	incoming chan leanRead
	closed   chan struct{}
	once     sync.Once
	readErr  error // why the read loop ended; set before incoming is closed

	writeMu sync.Mutex
	buf     []byte // guarded by writeMu

	mu      sync.Mutex
	next    uint64
	waiters map[uint64]chan rawReply // raw id's number (rawIDPrefix+n) → its caller; nil once the stream ended
	spare   spares
}

func (c *leanConn) SessionID() string { return "" }

func (c *leanConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	default:
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case r, ok := <-c.incoming:
		if !ok {
			return nil, c.readErr
		}
		return r.msg, r.err
	case <-c.closed:
		return nil, lost(io.EOF)
	}
}

func (c *leanConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	default:
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("marshaling message: %w", err)
	}
	return c.writeLine(data)
}

// writeLine writes data and a newline as one write. A failed write is ErrLost: the server
// may have read part of it, and can answer nothing more.
func (c *leanConn) writeLine(data ...[]byte) error {
	return c.writeMessage(func(b []byte) []byte {
		for _, d := range data {
			b = append(b, d...)
		}
		return b
	})
}

// writeMessage is writeLine of what fill appends to the buffer it is given.
func (c *leanConn) writeMessage(fill func([]byte) []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	c.buf = append(fill(c.buf[:0]), '\n')
	_, err := c.w.Write(c.buf)
	if cap(c.buf) > 64<<10 {
		c.buf = nil // do not keep one large message's buffer for the connection's life
	}
	if err != nil {
		c.markEnded() // a server that cannot be written to can answer nothing more
		return lost(err)
	}
	return nil
}

// markEnded reports the end of the stream to the transport's owner.
func (c *leanConn) markEnded() {
	if c.ended != nil {
		c.ended()
	}
}

func (c *leanConn) Close() error {
	var err error
	c.once.Do(func() {
		close(c.closed)
		err = errors.Join(c.w.Close(), c.r.Close())
	})
	return err
}

// call sends a request of method with params (a JSON object, or nil) under an id of its own
// and returns the result as the server wrote it. A JSON-RPC error answer is a *jsonrpc.Error.
// When ctx ends first, or deadline (none when zero) passes, the server is sent
// notifications/cancelled for it and the call returns ctx.Err() or context.DeadlineExceeded;
// a call past its deadline is not sent. A connection that is
// closed before the request is written is ErrNotSent (wrapping mcp.ErrConnectionClosed, as
// the SDK's own calls report it); one that fails the write or ends before the answer ErrLost
// (wrapping io.EOF when it ended).
func (c *leanConn) call(ctx context.Context, deadline time.Time, method string, params json.RawMessage) (json.RawMessage, error) {
	if err := ctx.Err(); err != nil {
		return nil, err // as the SDK: a call whose context ended is not sent
	}
	var d time.Duration
	if !deadline.IsZero() {
		if d = time.Until(deadline); d <= 0 {
			return nil, context.DeadlineExceeded
		}
	}
	if bytes.ContainsAny(params, "\r\n") {
		// One message is one line: a pretty-printed params value would end it early.
		var c bytes.Buffer
		if err := json.Compact(&c, params); err != nil {
			return nil, fmt.Errorf("calling %q: params: %w", method, err)
		}
		params = c.Bytes()
	}
	c.mu.Lock()
	if c.waiters == nil {
		c.mu.Unlock()
		return nil, notSent(fmt.Errorf("calling %q: %w", method, mcp.ErrConnectionClosed))
	}
	c.next++
	n := c.next
	ch := c.spare.reply()
	c.waiters[n] = ch
	var t *time.Timer
	if d > 0 {
		t = c.spare.timer()
	}
	c.mu.Unlock()
	var expired <-chan time.Time // nil: no deadline
	if t != nil {
		t.Reset(d)
		expired = t.C
		defer func() {
			t.Stop() // no value left to read after (Go 1.23 timers): the next Reset starts clean
			c.mu.Lock()
			c.spare.putTimer(t)
			c.mu.Unlock()
		}()
	}
	// forget drops the call's record, and keeps ch for another call when nobody can send on
	// it now.
	forget := func() {
		c.mu.Lock()
		if _, waiting := c.waiters[n]; waiting {
			delete(c.waiters, n)
			c.spare.putReply(ch)
		}
		c.mu.Unlock()
	}
	if err := c.writeMessage(func(b []byte) []byte { return wire.AppendNumberedRequest(b, rawIDPrefix, n, method, params) }); err != nil {
		forget()
		return nil, fmt.Errorf("calling %q: %w", method, err)
	}
	var err error
	select {
	case r := <-ch:
		c.mu.Lock()
		c.spare.putReply(ch) // the one send on it received
		c.mu.Unlock()
		return r.result, r.err
	case <-ctx.Done():
		err = ctx.Err()
	case <-expired:
		err = context.DeadlineExceeded
	}
	forget()
	reason := err.Error()
	if ctx.Err() != nil {
		reason = context.Cause(ctx).Error()
	}
	// As the SDK does for its own calls: tell the server, which may stop the work; not
	// waiting for the write, so that a server that stopped reading cannot hold the caller
	// (Close ends the write).
	id := rawIDPrefix + strconv.FormatUint(n, 10)
	go c.writeLine(wire.AppendCancelled(nil, id, reason))
	return nil, err
}

// spares are the reply channels and stopped timers of a connection's calls that ended, kept
// for its next calls (up to maxSpare of each): none made per call. They are the connection's
// own, never shared with another's (a synctest bubble's must stay in it).
type spares struct {
	replies []chan rawReply // empty, each sent on once per call
	timers  []*time.Timer
}

// maxSpare bounds what an idle connection keeps: its peak of calls at once, up to this.
const maxSpare = 8

func (s *spares) reply() chan rawReply {
	if n := len(s.replies); n > 0 {
		ch := s.replies[n-1]
		s.replies = s.replies[:n-1]
		return ch
	}
	return make(chan rawReply, 1)
}

func (s *spares) putReply(ch chan rawReply) {
	if len(s.replies) < maxSpare {
		s.replies = append(s.replies, ch)
	}
}

func (s *spares) timer() *time.Timer {
	if n := len(s.timers); n > 0 {
		t := s.timers[n-1]
		s.timers = s.timers[:n-1]
		return t
	}
	t := time.NewTimer(time.Hour)
	t.Stop()
	return t
}

func (s *spares) putTimer(t *time.Timer) {
	if len(s.timers) < maxSpare {
		s.timers = append(s.timers, t)
	}
}

// readLoop reads the server's messages until the stream ends: pass-through answers go to their
// callers, tapped notifications to deliver, everything else to the SDK, in order. The error
// that ends the stream is ErrLost, for the calls it fails.
func (c *leanConn) readLoop(lr *wire.LineReader) {
	var err error
	defer func() {
		c.markEnded()
		c.mu.Lock()
		waiters := c.waiters
		c.waiters = nil
		c.mu.Unlock()
		for _, ch := range waiters {
			ch <- rawReply{err: lost(fmt.Errorf("server closed the connection before answering: %w", io.EOF))}
		}
		c.readErr = lost(err)
		close(c.incoming)
	}()
	for {
		var line []byte
		line, err = lr.Next()
		if errors.Is(err, wire.ErrParse) {
			err = fmt.Errorf("invalid JSON-RPC message from the server: %.200q", line)
			c.send(leanRead{err: lost(err)})
			return
		}
		if err != nil {
			return
		}
		if !c.dispatch(line) {
			err = io.EOF
			return
		}
	}
}

// send hands r to the SDK's Read, or reports false once the connection is closed. An error
// ends the stream: the SDK fails every call in flight and ends the session on it.
func (c *leanConn) send(r leanRead) bool {
	if r.err != nil {
		c.markEnded()
	}
	select {
	case c.incoming <- r:
		return true
	case <-c.closed:
		return false
	}
}

// dispatch routes one message (or batch) line; false means the connection was closed.
func (c *leanConn) dispatch(line []byte) bool {
	if wire.IsBatch(line) {
		msgs, _, err := wire.DecodeBatch(line)
		if err != nil {
			return c.send(leanRead{err: lost(fmt.Errorf("invalid JSON-RPC batch from the server: %w", err))})
		}
		for i := range msgs {
			if !c.dispatchMessage(&msgs[i]) {
				return false
			}
		}
		return true
	}
	if c.fastAnswer(line) {
		return true
	}
	m, err := wire.Decode(line)
	if err != nil {
		return c.send(leanRead{err: lost(fmt.Errorf("invalid JSON-RPC message from the server: %w", err))})
	}
	return c.dispatchMessage(&m)
}

// fastAnswer hands a pass-through answer written in the usual form to its caller without
// decoding it (wire.CutResult). It reports false for anything else (then decoded as any
// message is).
func (c *leanConn) fastAnswer(data []byte) bool {
	n, result, ok := wire.CutResult(data, rawIDPrefix)
	if !ok {
		return false
	}
	return c.answer(n, &wire.Message{Result: result})
}

// dispatchMessage routes one decoded message.
func (c *leanConn) dispatchMessage(m *wire.Message) bool {
	if m.IsResponse() {
		if id, ok := m.SDKID().Raw().(string); ok && strings.HasPrefix(id, rawIDPrefix) {
			n, _ := wire.NumberedID(id, rawIDPrefix) // 0 for no number: no call's (they count from 1)
			return c.answer(n, m)
		}
	}
	if m.IsNotification() && c.deliver != nil && tapped(m.Method) {
		c.deliver(m.Method, m.Params)
	}
	return c.send(leanRead{msg: m.SDK()})
}

// answer hands a pass-through response to the caller of the call numbered n, and reports
// true; when nobody waits for it (the caller gave up) the response is dropped.
func (c *leanConn) answer(n uint64, w *wire.Message) bool {
	c.mu.Lock()
	ch := c.waiters[n]
	delete(c.waiters, n)
	c.mu.Unlock()
	if ch == nil {
		return true // the caller gave up (its ctx ended); nobody else knows the id
	}
	r := rawReply{result: w.Result}
	if w.Error != nil {
		r.err = w.Error
	} else if w.Result == nil {
		r.err = errors.New("invalid JSON-RPC response: neither result nor error")
	}
	ch <- r
	return true
}

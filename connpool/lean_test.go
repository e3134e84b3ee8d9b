package connpool

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// leanPeer is the server's side of a leanConn: what it writes, the conn reads.
type leanPeer struct {
	conn *leanConn
	toC  *io.PipeWriter // the server's stdout
	from *bufio.Reader  // the server's stdin

	mu        sync.Mutex
	delivered []string // tapped notifications, as delivered
}

func newLeanPeer(t *testing.T) *leanPeer {
	t.Helper()
	cr, sw := io.Pipe() // server → conn
	sr, cw := io.Pipe() // conn → server
	p := &leanPeer{toC: sw, from: bufio.NewReader(sr)}
	lt := &leanTransport{r: cr, w: cw, deliver: func(method string, params json.RawMessage) {
		p.mu.Lock()
		p.delivered = append(p.delivered, method+" "+string(params))
		p.mu.Unlock()
	}}
	c, err := lt.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	p.conn = c.(*leanConn)
	t.Cleanup(func() { p.conn.Close(); sw.Close(); sr.Close() })
	return p
}

// send writes lines as the server.
func (p *leanPeer) send(t *testing.T, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(p.toC, l+"\n"); err != nil {
			t.Fatal(err)
		}
	}
}

// recv reads the next line the conn wrote.
func (p *leanPeer) recv(t *testing.T) string {
	t.Helper()
	l, err := p.from.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(l, "\n")
}

func read(t *testing.T, c *leanConn) jsonrpc.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	m, err := c.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestLeanRawCallBesideTheSDK(t *testing.T) {
	p := newLeanPeer(t)
	type out struct {
		res json.RawMessage
		err error
	}
	got := make(chan out, 1)
	go func() {
		res, err := p.conn.call(context.Background(), time.Time{}, "tools/call", json.RawMessage(`{"name":"echo","arguments":{"x":1}}`))
		got <- out{res, err}
	}()
	req := p.recv(t)
	var w struct {
		ID     string          `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal([]byte(req), &w); err != nil || w.Method != "tools/call" || !strings.HasPrefix(w.ID, rawIDPrefix) ||
		string(w.Params) != `{"name":"echo","arguments":{"x":1}}` {
		t.Fatalf("written %s (%v)", req, err)
	}
	// The SDK's traffic is interleaved with the answer: a log message (tapped), a response to
	// one of the SDK's own calls, then the raw answer, then a request from the server.
	p.send(t,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"before"}}`,
		`{"jsonrpc":"2.0","id":7,"result":{"tools":[]}}`,
		`{"jsonrpc":"2.0","id":"`+w.ID+`","result":{"content":[{"type":"text","text":"x"}], "isError" : false}}`,
		`{"jsonrpc":"2.0","id":"s1","method":"roots/list"}`)
	o := <-got
	if o.err != nil || string(o.res) != `{"content":[{"type":"text","text":"x"}], "isError" : false}` {
		t.Fatalf("raw result %s, %v: the server's bytes should come back as written", o.res, o.err)
	}
	if m, ok := read(t, p.conn).(*jsonrpc.Request); !ok || m.Method != "notifications/message" || m.ID.IsValid() {
		t.Fatalf("first SDK message %#v", m)
	}
	if m, ok := read(t, p.conn).(*jsonrpc.Response); !ok || m.ID.Raw() != int64(7) || string(m.Result) != `{"tools":[]}` {
		t.Fatalf("second SDK message %#v", m)
	}
	if m, ok := read(t, p.conn).(*jsonrpc.Request); !ok || m.Method != "roots/list" || m.ID.Raw() != "s1" {
		t.Fatalf("third SDK message %#v", m)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.delivered) != 1 || !strings.HasPrefix(p.delivered[0], "notifications/message ") {
		t.Errorf("delivered %q", p.delivered)
	}
}

func TestLeanRawCallError(t *testing.T) {
	p := newLeanPeer(t)
	errc := make(chan error, 1)
	go func() {
		_, err := p.conn.call(context.Background(), time.Time{}, "tools/call", json.RawMessage(`{"name":"nope"}`))
		errc <- err
	}()
	var w struct{ ID string }
	json.Unmarshal([]byte(p.recv(t)), &w)
	p.send(t, `{"jsonrpc":"2.0","id":"`+w.ID+`","error":{"code":-32602,"message":"unknown tool nope"}}`)
	var we *jsonrpc.Error
	if err := <-errc; !errors.As(err, &we) || we.Code != -32602 || we.Message != "unknown tool nope" {
		t.Fatalf("err %v", err)
	}
}

func TestLeanRawCallCancelled(t *testing.T) {
	p := newLeanPeer(t)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := p.conn.call(ctx, time.Time{}, "tools/call", json.RawMessage(`{"name":"slow"}`))
		errc <- err
	}()
	var w struct{ ID string }
	json.Unmarshal([]byte(p.recv(t)), &w)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	var n struct {
		Method string
		Params struct{ RequestID string }
	}
	if l := p.recv(t); json.Unmarshal([]byte(l), &n) != nil || n.Method != "notifications/cancelled" || n.Params.RequestID != w.ID {
		t.Fatalf("after the cancel the server got %s", l)
	}
	// A late answer is dropped; the SDK sees only what follows it.
	p.send(t, `{"jsonrpc":"2.0","id":"`+w.ID+`","result":{}}`, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	if m, ok := read(t, p.conn).(*jsonrpc.Response); !ok || m.ID.Raw() != int64(1) {
		t.Fatalf("SDK read %#v", m)
	}
}

// TestLeanRawCallDeadline: a call past its deadline returns context.DeadlineExceeded, at the
// deadline and not before, and the server is sent notifications/cancelled for it; a call whose
// deadline has passed is not sent.
func TestLeanRawCallDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newLeanPeer(t)
		if _, err := p.conn.call(context.Background(), time.Now(), "tools/call", json.RawMessage(`{"name":"x"}`)); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("a call past its deadline: %v", err)
		}
		errc := make(chan error, 1)
		go func() {
			_, err := p.conn.call(context.Background(), time.Now().Add(time.Minute), "tools/call", json.RawMessage(`{"name":"slow"}`))
			errc <- err
		}()
		var w struct{ ID string }
		json.Unmarshal([]byte(p.recv(t)), &w) // the first line: the call past its deadline was not sent
		advance(time.Minute - time.Nanosecond)
		select {
		case err := <-errc:
			t.Fatalf("returned before the deadline: %v", err)
		default:
		}
		advance(time.Nanosecond)
		if err := <-errc; !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err %v", err)
		}
		var n struct {
			Method string
			Params struct{ RequestID, Reason string }
		}
		if l := p.recv(t); json.Unmarshal([]byte(l), &n) != nil || n.Method != "notifications/cancelled" || n.Params.RequestID != w.ID || n.Params.Reason != context.DeadlineExceeded.Error() {
			t.Fatalf("after the deadline the server got %s", l)
		}
	})
}

func TestLeanConnectionEnds(t *testing.T) {
	p := newLeanPeer(t)
	errc := make(chan error, 1)
	go func() {
		_, err := p.conn.call(context.Background(), time.Time{}, "tools/call", json.RawMessage(`{"name":"x"}`))
		errc <- err
	}()
	p.recv(t)
	p.toC.Close() // the server exits before answering
	if err := <-errc; !errors.Is(err, io.EOF) {
		t.Fatalf("unanswered call: %v, want io.EOF (sent, unanswered)", err)
	}
	if _, err := p.conn.Read(context.Background()); !errors.Is(err, io.EOF) {
		t.Fatalf("SDK read after the end: %v", err)
	}
	if _, err := p.conn.call(context.Background(), time.Time{}, "tools/call", nil); !errors.Is(err, mcp.ErrConnectionClosed) {
		t.Fatalf("call after the end: %v, want mcp.ErrConnectionClosed (not sent)", err)
	}
}

func TestLeanFraming(t *testing.T) {
	p := newLeanPeer(t)
	// A pretty-printing server, a blank line, CRLF, a batch.
	p.send(t, `{"jsonrpc":"2.0",`, `  "id":3,`, `  "result":{}}`, ``, "{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{}}\r",
		`[{"jsonrpc":"2.0","id":5,"result":{}},{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}]`)
	for _, want := range []int64{3, 4, 5} {
		if m, ok := read(t, p.conn).(*jsonrpc.Response); !ok || m.ID.Raw() != want {
			t.Fatalf("want response %d, read %#v", want, m)
		}
	}
	if m, ok := read(t, p.conn).(*jsonrpc.Request); !ok || m.Method != "notifications/progress" {
		t.Fatalf("read %#v", m)
	}
	// Garbage ends the connection with an error naming it.
	p.send(t, `this is not json`)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := p.conn.Read(ctx); err == nil || !strings.Contains(err.Error(), "this is not json") {
		t.Fatalf("garbage: %v", err)
	}
}

func TestLeanBadMessages(t *testing.T) {
	for _, line := range []string{
		`{"jsonrpc":"1.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","result":{}}`,
		`{"jsonrpc":"2.0","id":{},"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":7}`,
		`[1,2`,
	} {
		p := newLeanPeer(t)
		p.send(t, line)
		if line == `[1,2` {
			p.toC.Close()
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := p.conn.Read(ctx)
		cancel()
		if err == nil {
			t.Errorf("%s: no error", line)
		}
	}
}

func FuzzLeanDispatch(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":"agentpool-raw-1","result":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`,
		`[{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"m"}}]`,
		`{"jsonrpc":"2.0","id":1.5,"method":"x"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := &leanConn{incoming: make(chan leanRead, 1024), closed: make(chan struct{}), waiters: map[uint64]chan rawReply{}}
		c.waiters[1] = make(chan rawReply, 1)
		c.deliver = func(string, json.RawMessage) {}
		if !json.Valid(data) {
			return
		}
		c.dispatch(data) // must not panic
	})
}

// A pretty-printed message is read in time (and memory) linear in its size: every line of it
// used to re-validate, and decode into a tree, all the lines before it (incomplete), so a
// 100 KB result printed over 6,000 lines allocated gigabytes and took seconds.
func TestLeanPrettyPrintedLinear(t *testing.T) {
	p := newLeanPeer(t)
	items := make([]map[string]int, 2000)
	for i := range items {
		items[i] = map[string]int{"i": i}
	}
	msg, err := json.MarshalIndent(map[string]any{"jsonrpc": "2.0", "id": 9, "result": map[string]any{"items": items}}, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	go io.WriteString(p.toC, string(msg)+"\n")
	m, ok := read(t, p.conn).(*jsonrpc.Response)
	runtime.ReadMemStats(&after)
	if !ok || m.ID.Raw() != int64(9) || !json.Valid(m.Result) {
		t.Fatalf("read %#v", m)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32*uint64(len(msg)) {
		t.Fatalf("reading a message of %d bytes over %d lines allocated %d bytes", len(msg), bytes.Count(msg, []byte("\n"))+1, alloc)
	}
}

// TestLeanRawCallCancelledBeforeSending: a call whose context already ended is not written
// (the SDK checks first too): the server sees neither it nor a cancellation.
func TestLeanRawCallCancelledBeforeSending(t *testing.T) {
	p := newLeanPeer(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.conn.call(ctx, time.Time{}, "tools/call", json.RawMessage(`{"name":"x"}`)); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	go p.conn.call(context.Background(), time.Time{}, "ping", nil)
	if l := p.recv(t); !strings.Contains(l, `"method":"ping"`) {
		t.Fatalf("the server's first line is %s: the cancelled call was sent", l)
	}
}

// TestLeanRawCallParamsOneLine: params with line breaks in their whitespace are sent as one
// line (the stdio transport's framing), their strings untouched.
func TestLeanRawCallParamsOneLine(t *testing.T) {
	p := newLeanPeer(t)
	go p.conn.call(context.Background(), time.Time{}, "tools/call", json.RawMessage("{\n \"name\": \"a\\nb\"\r\n}"))
	if l := p.recv(t); !strings.HasSuffix(l, `"params":{"name":"a\nb"}}`) {
		t.Fatalf("written %q", l)
	}
}

// TestLeanAnswerForms: a pass-through answer is read right in the usual form (taken without
// decoding) and in any other: fields in another order, a field after the result, an error.
func TestLeanAnswerForms(t *testing.T) {
	for _, c := range []struct{ answer, result, err string }{
		{`{"jsonrpc":"2.0","id":"%s","result":{"a":[1,"}"]}}`, `{"a":[1,"}"]}`, ""},
		{`{"id":"%s","jsonrpc":"2.0","result":{"b":2}}`, `{"b":2}`, ""},
		{`{"jsonrpc":"2.0","id":"%s","result":{},"extra":1}`, `{}`, ""},
		{`{"jsonrpc":"2.0","id":"%s","result":{}}  ` + "\r", `{}`, ""},
		{`{"jsonrpc":"2.0","id":"%s","error":{"code":-1,"message":"no"}}`, "", "no"},
	} {
		p := newLeanPeer(t)
		type out struct {
			res json.RawMessage
			err error
		}
		got := make(chan out, 1)
		go func() {
			res, err := p.conn.call(context.Background(), time.Time{}, "tools/call", json.RawMessage(`{}`))
			got <- out{res, err}
		}()
		var w struct{ ID string }
		json.Unmarshal([]byte(p.recv(t)), &w)
		p.send(t, fmt.Sprintf(c.answer, w.ID))
		o := <-got
		if string(o.res) != c.result || (c.err == "") != (o.err == nil) || o.err != nil && !strings.Contains(o.err.Error(), c.err) {
			t.Errorf("%s: %s, %v", c.answer, o.res, o.err)
		}
	}
}

// TestLeanLateAnswerAfterDeadline: the answer to a call that passed its deadline, arriving
// after it, is dropped; it never reaches the next call, which is handed the same reply
// channel (the connection's spare) and gets its own answer.
func TestLeanLateAnswerAfterDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newLeanPeer(t)
		type out struct {
			res json.RawMessage
			err error
		}
		call := func(deadline time.Time) (string, chan out) {
			got := make(chan out, 1)
			go func() {
				res, err := p.conn.call(context.Background(), deadline, "tools/call", json.RawMessage(`{}`))
				got <- out{res, err}
			}()
			var w struct{ ID string }
			if err := json.Unmarshal([]byte(p.recv(t)), &w); err != nil || w.ID == "" {
				t.Fatalf("request: %v", err)
			}
			return w.ID, got
		}
		late, first := call(time.Now().Add(time.Minute))
		advance(time.Minute)
		if o := <-first; !errors.Is(o.err, context.DeadlineExceeded) {
			t.Fatalf("first call: %s, %v", o.res, o.err)
		}
		p.recv(t) // its notifications/cancelled
		id, next := call(time.Time{})
		p.send(t, `{"jsonrpc":"2.0","id":"`+late+`","result":{"call":"late"}}`, `{"jsonrpc":"2.0","id":"`+id+`","result":{"call":"next"}}`)
		if o := <-next; o.err != nil || string(o.res) != `{"call":"next"}` {
			t.Fatalf("next call: %s, %v; want its own answer", o.res, o.err)
		}
	})
}

// TestLeanRawIDsApartFromTheSDKs: a response whose id is the number of a raw call in flight,
// as a JSON number (the SDK's ids) or a string without the raw prefix, is the SDK's; only the
// prefixed id answers the raw call.
func TestLeanRawIDsApartFromTheSDKs(t *testing.T) {
	p := newLeanPeer(t)
	type out struct {
		res json.RawMessage
		err error
	}
	got := make(chan out, 1)
	go func() {
		res, err := p.conn.call(context.Background(), time.Time{}, "tools/call", json.RawMessage(`{}`))
		got <- out{res, err}
	}()
	var w struct{ ID string }
	if err := json.Unmarshal([]byte(p.recv(t)), &w); err != nil {
		t.Fatal(err)
	}
	n, ok := strings.CutPrefix(w.ID, rawIDPrefix)
	if !ok {
		t.Fatalf("raw id %q", w.ID)
	}
	p.send(t,
		`{"jsonrpc":"2.0","id":`+n+`,"result":{"to":"sdk number"}}`,
		`{"jsonrpc":"2.0","id":"`+n+`","result":{"to":"sdk string"}}`,
		`{"jsonrpc":"2.0","id":"`+w.ID+`","result":{"to":"raw"}}`)
	if o := <-got; o.err != nil || string(o.res) != `{"to":"raw"}` {
		t.Fatalf("raw call: %s, %v", o.res, o.err)
	}
	for _, want := range []string{`{"to":"sdk number"}`, `{"to":"sdk string"}`} {
		if m, ok := read(t, p.conn).(*jsonrpc.Response); !ok || string(m.Result) != want {
			t.Fatalf("SDK read %#v, want the response %s", m, want)
		}
	}
}

package lane

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"sync"
	"time"
)

// A Call is a request Options.Take took. Serve runs on a goroutine of its own and answers with
// w.Write, once; ctx ends when the client goes away (the connection reads EOF or fails) or the
// lane is shut down past its grace. The body Take was given stays valid until Serve returns.
// A Serve that returns without writing, or panics, ends the connection: the client sees it
// close (a panic, of Serve or of Options.Take, is logged as net/http logs a handler's).
type Call interface {
	Serve(ctx context.Context, w *Writer)
}

// Options configures a Lane.
type Options struct {
	// Take is offered each request read whole from a connection the lane serves: r (its
	// Method, URL, RequestURI, Proto, Host, Header, ContentLength, RemoteAddr and a context
	// holding http.LocalAddrContextKey; Body is http.NoBody) and its body. It returns the
	// call that answers it, or false having done nothing, and the connection goes back to
	// net/http with the request unread. r and body are the lane's: Take must not keep r, and
	// body only until the call's Serve returns. Take runs on the connection's goroutine.
	Take func(r *http.Request, body []byte) (Call, bool)
	// IdleTimeout closes a connection with no call in flight that gets no request for as
	// long (net/http's Server.IdleTimeout); 0: never.
	IdleTimeout time.Duration
	// HeaderTimeout closes a connection whose request, begun, is not whole after as long
	// (net/http's ReadHeaderTimeout, which the lane also holds the body to); 0: IdleTimeout.
	HeaderTimeout time.Duration
	// BufferSize bounds a request the lane takes: head and body within it (default 64 KiB).
	// A larger one goes back to net/http.
	BufferSize int
}

// A Lane serves, on connections handed to it with Serve (hijacked from net/http after an
// answer), the requests Options.Take takes, and hands a connection back to the http.Server
// that serves Listen's listener at the first request it does not take, with the bytes of
// that request unread. So net/http still parses, checks and answers whatever is not a plain
// keep-alive POST the lane's taker knows (ParseHead's subset), and the lane answers the rest
// with one write and no goroutine of net/http's per request.
//
// What net/http does for a connection the lane keeps: the idle and header timeouts (Options),
// ending a call's context when its client goes away, one answer at a time in request order
// (a pipelined request waits for the answer before it), and a graceful Shutdown. Writes are
// bounded by whatever bounds the connection's writes (serve's writestall).
type Lane struct {
	opts     Options
	handback chan net.Conn // connections going back to net/http (Listen)
	closed   chan struct{} // closed with Listen's listener: nothing is handed back after
	once     sync.Once

	workers *workers

	mu      sync.Mutex
	conns   map[*conn]struct{}
	closing bool
	idle    chan struct{} // closed when conns empties while closing
}

// New returns a Lane with opts.
func New(opts Options) *Lane {
	if opts.BufferSize <= 0 {
		opts.BufferSize = 64 << 10
	}
	if opts.HeaderTimeout <= 0 {
		opts.HeaderTimeout = opts.IdleTimeout
	}
	return &Lane{opts: opts, handback: make(chan net.Conn), closed: make(chan struct{}), workers: newWorkers(), conns: map[*conn]struct{}{}}
}

// errClientGone is the cause of a call's context when its client went away.
var errClientGone = errors.New("lane: the client closed the connection")

// errShutdown is the cause of a call's context when Shutdown gave up waiting for it.
var errShutdown = errors.New("lane: shut down")

// Serve serves nc from now on: br holds what was read of it and not consumed (a hijacked
// connection's reader). It returns at once. After Shutdown began it closes nc.
func (l *Lane) Serve(nc net.Conn, br *bufio.Reader) {
	nc, unread := unwrap(nc, br)
	c := &conn{l: l, nc: nc}
	var src io.Reader = nc
	if len(unread) > 0 {
		c.src = &prefixed{p: unread, r: nc}
		src = c.src
	}
	c.br = bufio.NewReaderSize(src, min(firstBuffer, l.opts.BufferSize))
	c.ctx, c.cancel = context.WithCancelCause(context.WithValue(context.Background(), http.LocalAddrContextKey, nc.LocalAddr()))
	l.mu.Lock()
	if l.closing {
		l.mu.Unlock()
		nc.Close()
		return
	}
	l.conns[c] = struct{}{}
	l.mu.Unlock()
	go c.serve()
}

// Shutdown stops taking connections, closes those waiting for a request, and waits for the
// calls in flight to be answered (their connections close after), until ctx ends: then it
// ends their contexts and closes every connection left, returning ctx's error.
func (l *Lane) Shutdown(ctx context.Context) error {
	l.mu.Lock()
	l.closing = true
	if l.idle == nil {
		l.idle = make(chan struct{})
		if len(l.conns) == 0 {
			close(l.idle)
		}
	}
	for c := range l.conns {
		c.closeIfIdle()
	}
	idle := l.idle
	l.mu.Unlock()
	defer l.workers.close()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
	}
	l.mu.Lock()
	for c := range l.conns {
		c.cancel(errShutdown)
		c.nc.Close()
	}
	l.mu.Unlock()
	return ctx.Err()
}

// forget removes c, which has ended.
func (l *Lane) forget(c *conn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.conns, c)
	if l.closing && len(l.conns) == 0 && l.idle != nil {
		select {
		case <-l.idle:
		default:
			close(l.idle)
		}
	}
}

// isClosing reports whether Shutdown has begun.
func (l *Lane) isClosing() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closing
}

// conn is one connection the lane serves: its goroutine (serve) reads requests and starts
// their calls; a call's goroutine writes the answer.
type conn struct {
	l      *Lane
	nc     net.Conn      // the connection accepted, never a wrapper of it
	br     *bufio.Reader // reads src, or nc when src is nil
	src    *prefixed     // what was read of nc before the lane had it, then nc
	ctx    context.Context
	cancel context.CancelCauseFunc

	head     Head
	req      http.Request
	w        Writer  // the answer of the call in flight (one at a time)
	body     *[]byte // the body of the call in flight, from bodies
	target   string
	url      *url.URL
	deadline time.Time
	begun    time.Time // when the request being read began arriving in parts; zero: none
	last     time.Time // when the last request was read or answered

	mu       sync.Mutex
	busy     bool          // a call is in flight
	waiting  chan struct{} // closed when busy clears; made by a goroutine that waits for it
	reading  bool          // a request has begun arriving (serve's; under mu for Shutdown)
	closeEnd bool          // Shutdown began: close once the call in flight is answered
	rearm    bool          // timedOut moved a request's header deadline past the call: run wakes the read
}

// serve reads and starts the connection's requests until it ends or goes back to net/http.
func (c *conn) serve() {
	c.req = http.Request{Method: http.MethodPost, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Body: http.NoBody,
		RemoteAddr: c.nc.RemoteAddr().String(), Header: http.Header{}}
	c.req = *c.req.WithContext(c.ctx)
	c.head.Header = c.req.Header
	c.last = time.Now()
	handback := false
	defer func() {
		if err := recover(); err != nil {
			c.logPanic("reading or taking a request", err)
			handback = false
		}
		c.cancel(errClientGone)
		c.waitIdle()
		if !handback {
			c.nc.Close()
		}
		c.l.forget(c)
	}()
	for {
		n, st := c.read()
		if st != got || !c.waitIdle() {
			// Ended, or the previous call's write failed, or Shutdown began; or a request
			// that is not the lane's (net/http's, now or once the call in flight answered).
			handback = st == others && c.waitIdle() && c.handBack()
			return
		}
		call, ok := c.take(n)
		if !ok {
			handback = c.handBack()
			return
		}
		c.br.Discard(n + int(c.head.ContentLength))
		c.shrink()
		c.mu.Lock()
		c.busy, c.reading = true, false
		c.mu.Unlock()
		c.l.workers.run(job{c: c, call: call})
	}
}

// readState is what read found.
type readState uint8

const (
	got    readState = iota // a whole request the lane may take
	others                  // a request outside ParseHead's subset or the buffer: net/http's
	ended                   // EOF, a failed read, a timeout due
)

// read waits for a whole request (head and body) in the reader and parses its head; n is the
// head's length. A request over BufferSize is net/http's; one over the reader's size grows it.
func (c *conn) read() (n int, st readState) {
	size := c.l.opts.BufferSize
	for want := 1; ; {
		c.armDeadline(want > 1)
		if want > c.br.Size() {
			c.grow()
		}
		b, err := c.br.Peek(want)
		if err != nil {
			if len(b) > 0 || c.br.Buffered() > 0 {
				c.mu.Lock()
				c.reading = true
				c.mu.Unlock()
			}
			if c.timedOut(err) {
				continue
			}
			return 0, ended
		}
		if want == 1 {
			c.mu.Lock()
			c.reading = true
			c.mu.Unlock()
		}
		b, _ = c.br.Peek(c.br.Buffered())
		hn, err := ParseHead(b, &c.head)
		switch {
		case errors.Is(err, ErrIncomplete):
			if len(b) >= min(size, MaxHead+1) {
				return 0, others
			}
			want = len(b) + 1
			continue
		case err != nil:
			return 0, others
		}
		total := int64(hn) + c.head.ContentLength
		if total > int64(size) {
			return 0, others
		}
		if int64(len(b)) < total {
			want = int(total)
			continue
		}
		c.begun = time.Time{}
		return hn, got
	}
}

// take offers the request read to Options.Take.
func (c *conn) take(n int) (Call, bool) {
	h := &c.head
	if h.Target != c.target || c.url == nil {
		u, err := url.ParseRequestURI(h.Target)
		if err != nil {
			return nil, false
		}
		c.target, c.url = h.Target, u
	}
	r := &c.req
	r.URL, r.RequestURI, r.Host, r.ContentLength = c.url, c.target, h.Host, h.ContentLength
	b, _ := c.br.Peek(n + int(h.ContentLength))
	c.body = bodies.Get().(*[]byte)
	*c.body = append((*c.body)[:0], b[n:]...) // the call's: the reader's buffer moves on
	c.last = time.Now()
	call, ok := c.l.opts.Take(r, *c.body)
	if !ok {
		c.putBody()
	}
	return call, ok
}

// putBody gives back the body of the call that ended, or that Take refused.
func (c *conn) putBody() {
	if cap(*c.body) <= 64<<10 {
		bodies.Put(c.body)
	}
	c.body = nil
}

// bodies are the buffers of the calls' bodies, shared by the connections: an idle one holds
// none.
var bodies = sync.Pool{New: func() any { return new([]byte) }}

// run serves call and clears busy once it has answered.
func (c *conn) run(call Call) {
	c.w = Writer{c: c}
	if !c.serveCall(call, &c.w) || !c.w.written {
		c.nc.Close() // no answer, or a broken one: the client must not wait for one
	}
	c.putBody()
	c.mu.Lock()
	c.busy = false
	c.last = time.Now()
	if c.waiting != nil {
		close(c.waiting)
		c.waiting = nil
	}
	end := c.closeEnd
	if c.rearm {
		// The request arriving has HeaderTimeout from now: wake its read (timedOut) to
		// set the deadline that was pushed on or dropped during the call.
		c.rearm = false
		_ = c.nc.SetReadDeadline(aLongTimeAgo)
	}
	c.mu.Unlock()
	if end {
		c.nc.Close()
	}
}

// serveCall runs call.Serve and reports whether it returned; false: it panicked, and the
// panic is logged (as net/http logs a handler's).
func (c *conn) serveCall(call Call, w *Writer) (ok bool) {
	defer func() {
		if err := recover(); err != nil {
			c.logPanic("a call", err)
		}
	}()
	call.Serve(c.ctx, w)
	return true
}

// logPanic logs what panicked in the connection's what, as net/http logs a handler's panic.
func (c *conn) logPanic(what string, err any) {
	if err == http.ErrAbortHandler {
		return
	}
	buf := make([]byte, 64<<10)
	buf = buf[:runtime.Stack(buf, false)]
	log.Printf("lane: panic in %s serving %v: %v\n%s", what, c.nc.RemoteAddr(), err, buf)
}

// waitIdle waits until no call is in flight and reports whether the connection may go on
// (false when the call's write failed or Shutdown began).
func (c *conn) waitIdle() bool {
	c.mu.Lock()
	if c.busy {
		ch := make(chan struct{})
		c.waiting = ch
		c.mu.Unlock()
		<-ch
		c.mu.Lock()
	}
	ok := !c.closeEnd
	c.mu.Unlock()
	return ok && c.ctx.Err() == nil
}

// closeIfIdle closes the connection when no request is in flight or arriving, and makes the
// call in flight close it once answered (Shutdown).
func (c *conn) closeIfIdle() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closeEnd = true
	if !c.busy && !c.reading {
		c.nc.Close()
	}
}

// handBack gives the connection, and what its reader holds, back to net/http through Listen's
// listener. false: the listener is closed, and the connection was not handed.
func (c *conn) handBack() bool {
	if c.l.isClosing() {
		return false
	}
	select {
	case c.l.handback <- &handed{Conn: c.nc, br: c.br, src: c.src}:
		return true
	case <-c.l.closed:
		return false
	}
}

// armDeadline sets the read deadline that read's wait needs when the one set is later than
// it: the idle timeout from the last activity; or, set once when a request began (partial),
// the header timeout from then, whatever was set before. A deadline that fires early is
// looked at again (timedOut), so that most requests set none.
func (c *conn) armDeadline(partial bool) {
	o := &c.l.opts
	if partial {
		if c.begun.IsZero() && o.HeaderTimeout > 0 {
			c.begun = time.Now()
			c.deadline = c.begun.Add(o.HeaderTimeout)
			_ = c.nc.SetReadDeadline(c.deadline)
		}
		return
	}
	c.mu.Lock() // run sets last
	busy, last := c.busy, c.last
	c.mu.Unlock()
	if busy || o.IdleTimeout <= 0 {
		return // the idle timeout waits for the answer: timedOut pushes the deadline on
	}
	want := last.Add(o.IdleTimeout)
	if c.deadline.IsZero() || want.Before(c.deadline) {
		c.deadline = want
		_ = c.nc.SetReadDeadline(want)
	}
}

// timedOut reports whether err is the read deadline firing early, which it re-arms: a call
// in flight, or activity since it was set. A timeout due ends the connection (false). It
// holds mu while it sets the deadline, so that run's wake at an answer is never undone.
func (c *conn) timedOut(err error) bool {
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	busy, last, partial := c.busy, c.last, c.reading
	o := &c.l.opts
	now := time.Now()
	var due time.Time
	c.rearm = c.rearm || busy && partial
	switch {
	case (busy || !partial) && o.IdleTimeout <= 0:
		// A header deadline of the request before: no idle timeout to keep.
		c.deadline = time.Time{}
		_ = c.nc.SetReadDeadline(time.Time{})
		return true
	case busy:
		due = now.Add(o.IdleTimeout)
	case partial:
		// The header timeout runs from when the request began, or from the answer before it
		// if it began during a call (net/http reads it only then).
		due = c.begun
		if last.After(due) {
			due = last
		}
		due = due.Add(o.HeaderTimeout)
	default:
		due = last.Add(o.IdleTimeout)
	}
	if !due.After(now) {
		return false
	}
	c.deadline = due
	_ = c.nc.SetReadDeadline(due)
	return true
}

// aLongTimeAgo is a read deadline that wakes a read at once.
var aLongTimeAgo = time.Unix(1, 0)

// outs are the buffers answers are written from, shared by the connections: an idle one
// holds none.
var outs = sync.Pool{New: func() any { return new([]byte) }}

// A Writer writes a call's answer.
type Writer struct {
	c       *conn
	written bool
}

// Write writes the answer, once: the status line, header (whole "Name: value\r\n" lines, no
// Content-Length or Date: Write adds them), and body, in one write to the connection. A
// failed write closes the connection.
func (w *Writer) Write(status int, header, body []byte) error {
	if w.written {
		return errors.New("lane: answer written twice")
	}
	w.written = true
	c := w.c
	out := outs.Get().(*[]byte)
	b := append((*out)[:0], "HTTP/1.1 "...)
	b = strconv.AppendInt(b, int64(status), 10)
	b = append(b, ' ')
	b = append(b, http.StatusText(status)...)
	b = append(b, "\r\n"...)
	b = append(b, header...)
	b = append(b, "Date: "...)
	b = appendDate(b)
	b = append(b, "\r\nContent-Length: "...)
	b = strconv.AppendInt(b, int64(len(body)), 10)
	b = append(b, "\r\n\r\n"...)
	b = append(b, body...)
	_, err := c.nc.Write(b)
	if cap(b) <= 64<<10 {
		*out = b[:0]
		outs.Put(out) // not one large answer's buffer for good
	}
	if err != nil {
		c.nc.Close()
	}
	return err
}

// firstBuffer is the size of a connection's reader until a larger request comes (grow): an
// idle keep-alive connection holds no more than net/http's would.
const firstBuffer = 4 << 10

// grow moves what the reader holds to one of BufferSize bytes.
func (c *conn) grow() {
	b, _ := c.br.Peek(c.br.Buffered())
	p := append([]byte(nil), b...)
	if c.src != nil {
		p = append(p, c.src.p...)
	}
	c.src = &prefixed{p: p, r: c.nc}
	c.br = bufio.NewReaderSize(c.src, c.l.opts.BufferSize)
}

// shrink goes back to a reader of firstBuffer bytes once a grown one has nothing left to
// read, so that a connection waiting after a large request holds no more than after a small.
func (c *conn) shrink() {
	if c.br.Size() <= firstBuffer || c.br.Buffered() > 0 || c.src != nil && len(c.src.p) > 0 {
		return
	}
	c.src = nil
	c.br = bufio.NewReaderSize(c.nc, firstBuffer)
}

// unwrap returns the connection accepted under nc (which may be one the lane handed back to
// net/http, coming back) and what was read of it and not consumed, in order: br's (net/http's
// reader), then the lane's old reader's, then what that reader had still to read first. So a
// connection going back and forth is one wrapper deep, whatever the number of round trips.
func unwrap(nc net.Conn, br *bufio.Reader) (net.Conn, []byte) {
	var p []byte
	if br != nil && br.Buffered() > 0 {
		b, _ := br.Peek(br.Buffered())
		p = append(p, b...)
	}
	if h, ok := nc.(*handed); ok {
		if n := h.br.Buffered(); n > 0 {
			b, _ := h.br.Peek(n)
			p = append(p, b...)
		}
		if h.src != nil {
			p = append(p, h.src.p...)
		}
		nc = h.Conn
	}
	return nc, p
}

// prefixed reads p, then r. Read past p, it holds none of p's array.
type prefixed struct {
	p []byte
	r io.Reader
}

func (p *prefixed) Read(b []byte) (int, error) {
	if len(p.p) > 0 {
		n := copy(b, p.p)
		p.p = p.p[n:]
		if len(p.p) == 0 {
			p.p = nil
		}
		return n, nil
	}
	return p.r.Read(b)
}

// handed is a connection going back to net/http: what the lane's reader holds is read first.
type handed struct {
	net.Conn
	br  *bufio.Reader
	src *prefixed // br's, as the lane's conn had it (unwrap)
}

func (h *handed) Read(p []byte) (int, error) { return h.br.Read(p) }

// CloseWrite half-closes the connection as the one handed does (net/http does so before it
// closes one, so that the client reads its last answer), or fails when it cannot.
func (h *handed) CloseWrite() error {
	cw, ok := h.Conn.(interface{ CloseWrite() error })
	if !ok {
		return errors.ErrUnsupported
	}
	return cw.CloseWrite()
}
